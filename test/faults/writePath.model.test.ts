// A model-based randomized test of the write path (issue 18), independent of the fault test in
// test/unit/bin/checkpoint.faults.test.ts: that one runs waves of identical typed checkpoints
// against one random fault at a time; this one generates whole programs with fast-check and
// checks what they did against a small reference model.
//
// A program is a list of rounds (fast-check commands). Between rounds the work tree changes
// (files edited, sometimes committed), time moves on (the outbox's stored times are moved back by
// the same amount, as a clock that jumped would see them: backoffs come due, the window in which
// the same typed words are the same checkpoint closes) and the stand-in CLI is set to misbehave:
// missing from PATH, slow, hanging, hanging behind a launcher, locked (by its answer or by a write
// lock this test holds), refusing, failing, or printing garbage. Each round then runs one to three
// real processes at once: a typed `checkpoint --message` (words that start with "-", quotes, shell
// text, other scripts; sometimes with `--issue`; sometimes a retry of earlier words, as an agent
// does after a timeout), `checkpoint --auto`, Claude Code's PreCompact hook, `retry` or
// `retry --parked`. Any of them may be SIGKILLed: after a random delay, or exactly while its write
// is marked in flight in the outbox (mid-write).
//
// What each process answered goes into the model: written, queued or refused (parked) on an
// issue. Checked as each round ends: a hook exits 0 with valid JSON within its deadline; a typed
// checkpoint that was not killed is written, queued or parked (its words kept, whatever the reads
// did), on the issue it was meant for; nothing reports damaged state. Checked once the program is
// over and the queue is sent with no faults (`retry --parked` until nothing waits):
//   - a typed checkpoint reported written, queued or parked landed exactly once, on its issue;
//     words retried within the window landed once in all; no killed one landed twice;
//   - every write the outbox counts as landed is in beads (exactly once per landing), every
//     checkpoint comment in beads is one the outbox counts, and no comment is doubled;
//   - an automatic checkpoint reported written or queued left one on its issue;
//   - nothing lands on an issue nobody asked for; issues.jsonl and every state file parse;
//   - no process the program started (stand-ins, launchers, the command line, git) still runs.
//
// Every seed is printed. WRITE_PATH_MODEL_SEED=<n> replays one; WRITE_PATH_MODEL_FRESH=<n> adds n
// fresh seeds (default 1); WRITE_PATH_MODEL_SHRINK=1 lets fast-check shrink a failing program to a
// smaller one (slow: every try runs real processes). Both cores are kept busy meanwhile: the races
// this looks for show when processes wait to be scheduled. A seed that ever fails is kept in
// FIXED_SEEDS.
import fc from 'fast-check';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fnv1a } from '../../src/core/hash';
import { makeWorkspace, STANDIN_BIN_DIR } from '../fixtures/make-workspace.mjs';
import { keepCoresBusyWhileTestsRun } from '../unit/support/busyCores';
import { CLI_SCRIPT, ensureCliBuilt } from '../unit/support/builtCli';

/**
 * Seeds kept as fixed cases, each of which failed once on a loaded machine: 10 and 13 found an
 * automatic checkpoint that had landed (its answer garbled, or its process killed mid-write)
 * merged into a later one unseen (test/unit/services/outbox.test.ts "looked for in beads");
 * 661462 (and 13 again) a PreCompact answer the test still required to be JSON; 585006 a
 * PreCompact hook that answered in 15.1 s, over the 13 s bound, while a second fault run loaded the
 * machine (issue 32: it passes alone, with and without the oldest-write-first change); 807659
 * writes beads refused, after which plain `retry` rightly exits 1 and the test waited for 0;
 * 271382, 279301 and 287220 PreCompact hooks over the bound (13.7 to 17.8 s) with two more busy
 * loops at load 17 to 24, while the drainer learned to send an issue's oldest write first.
 */
const FIXED_SEEDS = [10, 13, 661462, 585006, 807659, 271382, 279301, 287220];
const FRESH_SEEDS = Number(process.env.WRITE_PATH_MODEL_FRESH ?? 1);
const SEEDS = process.env.WRITE_PATH_MODEL_SEED
  ? [Number(process.env.WRITE_PATH_MODEL_SEED)]
  : [...FIXED_SEEDS, ...Array.from({ length: FRESH_SEEDS }, (_unused, index) => (Date.now() + index * 7919) % 1_000_000)];
const SHRINK = process.env.WRITE_PATH_MODEL_SHRINK === '1';

/** The in-progress issue every checkpoint without --issue is for (the scenario has one). */
const IN_PROGRESS = 'demo-1';
/** Issues a typed checkpoint may name: the one in progress and two open ones. */
const TARGETS = [IN_PROGRESS, 'demo-8', 'demo-9'] as const;
const CLI_TIMEOUT_MS = 1500;
const HOOK_DEADLINE_MS = 8000;
/** A loaded machine starts node slowly: a hook's answer may come this much after its deadline. */
const HOOK_SLACK_MS = 5000;
/** A process that has not ended after this long hangs: a failure of its own. */
const PROCESS_LIMIT_MS = 45_000;
const SAME_WORDS_WINDOW_MS = 15 * 60_000;
/** Time is moved on by at most this much in all: a CLI pid noted in flight is trusted for an hour. */
const MAX_TOTAL_SHIFT_MS = 50 * 60_000;

type Scope = 'all' | 'read' | 'write';
type Fault =
  | { kind: 'none' }
  | { kind: 'missing' }
  | { kind: 'slow'; ms: number; scope: Scope }
  | { kind: 'hang'; scope: Scope }
  | { kind: 'launcher-hang' }
  | { kind: 'locked'; scope: Scope }
  | { kind: 'lock-held' }
  | { kind: 'refusing' }
  | { kind: 'failing' }
  | { kind: 'garbage'; scope: Scope }
  /** The write lands, then the CLI hangs until it is killed, or prints garbage: its answer is lost. */
  | { kind: 'landed-then-hang' }
  | { kind: 'landed-then-garbage' }
  /** The previous round's fault goes on: outages span rounds. */
  | { kind: 'same' };
type Interrupt = { kind: 'none' } | { kind: 'after'; ms: number } | { kind: 'mid-write' };
type Step =
  | { op: 'typed'; words: string; issue?: (typeof TARGETS)[number]; interrupt: Interrupt }
  /** The words of an earlier typed checkpoint again (`pick` modulo how many there were), as an agent retries. */
  | { op: 'repeat'; pick: number; interrupt: Interrupt }
  | { op: 'auto'; interrupt: Interrupt }
  | { op: 'pre-compact'; session: string; interrupt: Interrupt }
  | { op: 'retry'; parked: boolean; interrupt: Interrupt };
interface Round {
  edits: number[];
  commit: boolean;
  advanceMs: number;
  fault: Fault;
  steps: Step[];
}
type Dialect = 'br' | 'br-0.5.7' | 'bd';

type Outcome = { kind: 'written' | 'queued' | 'parked' | 'nothing-new'; issueId: string } | { kind: 'killed' } | { kind: 'other'; text: string };

/** One set of typed words: first asked for, then perhaps asked for again. */
interface TypedWords {
  words: string;
  issue?: string;
  /** How far time had been moved on when each request was made. */
  shiftsAtRequest: number[];
  outcomes: Outcome[];
}

interface Model {
  typed: TypedWords[];
  autos: { issueId: string; kind: 'written' | 'queued' }[];
  /** How far time has been moved on so far. */
  shiftMs: number;
}

const scope = fc.constantFrom<Scope>('all', 'read', 'write');
const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Fault>({ kind: 'none' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'missing' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('slow' as const), ms: fc.integer({ min: 100, max: 2500 }), scope }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hang' as const), scope }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'launcher-hang' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('locked' as const), scope }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'lock-held' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'refusing' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'failing' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), scope }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'landed-then-hang' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'landed-then-garbage' }) },
  { weight: 5, arbitrary: fc.constant<Fault>({ kind: 'same' }) },
);
const interruptArb: fc.Arbitrary<Interrupt> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Interrupt>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('after' as const), ms: fc.integer({ min: 50, max: 2500 }) }) },
  { weight: 2, arbitrary: fc.constant<Interrupt>({ kind: 'mid-write' }) },
);
/** Words as models and people type them: a markdown bullet, option-like text, quotes, shell, other scripts. */
const wordsArb = fc.constantFrom('parser done; next: errors', '- parser done', '--issue demo-9 is next', '-m twice', '"quoted" and \'single\'', '$(touch pwned) `id`', 'ünïcödé ✓ 完成', '; rm -rf ~ #');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('typed' as const), words: wordsArb, issue: fc.option(fc.constantFrom(...TARGETS), { nil: undefined }), interrupt: interruptArb }, { requiredKeys: ['op', 'words', 'interrupt'] }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('repeat' as const), pick: fc.nat(20), interrupt: interruptArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('auto' as const), interrupt: interruptArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('pre-compact' as const), session: fc.constantFrom('session-a', 'session-b'), interrupt: interruptArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('retry' as const), parked: fc.boolean(), interrupt: interruptArb }) },
);
const roundArb: fc.Arbitrary<Round> = fc.record({
  edits: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
  commit: fc.constantFrom(false, false, false, true),
  advanceMs: fc.constantFrom(0, 0, 0, 45_000, 45_000, 6 * 60_000, 16 * 60_000),
  fault: faultArb,
  steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }),
});

const scratch = mkdtempSync(path.join(tmpdir(), 'write-path-model-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
keepCoresBusyWhileTestsRun();

describe.skipIf(process.platform === 'win32')('the write path against a reference model, both cores busy', () => {
  it.each(SEEDS)('seed %i: every write reported lands once, typed words are kept, nothing doubles, lands elsewhere, is damaged or left running', async (seed) => {
    console.log(`write path model: seed ${seed} (WRITE_PATH_MODEL_SEED=${seed} replays it)`);
    let programNumber = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Dialect>('br', 'br-0.5.7', 'bd'), fc.array(roundArb.map((round) => new RoundCommand(round)), { minLength: 4, maxLength: 8 }), async (dialect, commands) => {
        const world = new World(path.join(scratch, `${seed}-${programNumber++}`), dialect);
        const model: Model = { typed: [], autos: [], shiftMs: 0 };
        try {
          await fc.asyncModelRun(() => ({ model, real: world }), commands);
          world.recover();
          world.checkFinal(model);
          console.log(`write path model: seed ${seed}, ${dialect}, ${summary(model)}; ${commands.join(' ; ')}`);
        } finally {
          world.endLeftovers();
        }
      }),
      { seed, numRuns: 1, endOnFailure: !SHRINK, verbose: 1 },
    );
  }, 600_000);
});

/** One round of the program: its edits, time, fault, then its processes at once. */
class RoundCommand implements fc.AsyncCommand<Model, World> {
  constructor(readonly round: Round) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, world: World): Promise<void> {
    await world.runRound(this.round, model);
  }
  toString(): string {
    const { edits, commit, advanceMs, fault, steps } = this.round;
    const what = steps.map((step) => `${step.op === 'typed' ? `typed(${JSON.stringify(step.words)}${step.issue ? ` on ${step.issue}` : ''})` : step.op === 'repeat' ? `repeat(${step.pick})` : step.op === 'retry' ? (step.parked ? 'retry --parked' : 'retry') : step.op}${step.interrupt.kind === 'none' ? '' : step.interrupt.kind === 'after' ? ` killed@${step.interrupt.ms}ms` : ' killed mid-write'}`);
    return `round{edits ${JSON.stringify(edits)}${commit ? ' committed' : ''}, +${advanceMs / 1000}s, fault ${JSON.stringify(fault)}: ${what.join(' | ')}}`;
  }
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  killed: boolean;
  /** Still running at PROCESS_LIMIT_MS, and killed for it. */
  hung: boolean;
}

/** The real system: a workspace, the stand-in CLI, the processes of one program. */
class World {
  readonly dir: string;
  private readonly faultFile: string;
  private readonly marker: string;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly outboxFile: string;
  private readonly initialComments: Set<string>;
  private readonly lockFile: string;
  /** Everything the program's processes printed: no damage reported, no write that bypassed the queue. */
  private readonly printed: string[] = [];
  private lastFault: Fault = { kind: 'none' };

  constructor(
    private readonly root: string,
    private readonly dialect: Dialect,
  ) {
    const cli = dialect === 'bd' ? 'bd' : 'br';
    this.dir = makeWorkspace({ dir: path.join(root, 'ws'), dialect: cli, data: 'scenario', git: true }).dir;
    for (const sub of ['home', 'tmp', 'processes']) mkdirSync(path.join(root, sub), { recursive: true });
    this.faultFile = path.join(root, 'fault');
    this.marker = `write-path-model-${path.basename(root)}-${process.pid}`;
    this.outboxFile = path.join(this.dir, '.git', 'beads-recovery', 'outbox.json');
    this.lockFile = path.join(this.dir, '.beads', '.write.lock');
    this.baseEnv = {
      ...process.env,
      HOME: path.join(root, 'home'),
      TMPDIR: path.join(root, 'tmp'),
      BEADS_RECOVERY_CLI: cli,
      BEADS_RECOVERY_TIMEOUT_MS: String(CLI_TIMEOUT_MS),
      BEADS_RECOVERY_HOOK_DEADLINE_MS: String(HOOK_DEADLINE_MS),
      BEADS_RECOVERY_PROCESS_DIR: path.join(root, 'processes'),
      BEADS_STANDIN_FAULT_FILE: this.faultFile,
      BEADS_STANDIN_LOCK_TIMEOUT_MS: '500',
      ...(dialect === 'br-0.5.7' ? { BEADS_STANDIN_BR_VERSION: '0.5.7' } : {}),
      // Every process this program starts, and every process those start, carries it (see leftovers).
      BEADS_WRITE_PATH_MODEL: this.marker,
    };
    this.initialComments = new Set(this.comments().map((comment) => `${comment.issueId}\0${comment.text}`));
  }

  async runRound(round: Round, model: Model): Promise<void> {
    this.edit(round);
    if (round.advanceMs > 0 && model.shiftMs + round.advanceMs <= MAX_TOTAL_SHIFT_MS) {
      this.moveTimeOn(round.advanceMs);
      model.shiftMs += round.advanceMs;
    }
    const fault = round.fault.kind === 'same' ? this.lastFault : round.fault;
    this.lastFault = fault;
    writeFileSync(this.faultFile, `${faultLine(fault)}\n`);
    const heldLock = fault.kind === 'lock-held' && !existsSync(this.lockFile);
    if (heldLock) writeFileSync(this.lockFile, `${this.marker}\n`);
    const launcher = fault.kind === 'launcher-hang' && this.dialect !== 'bd';
    const env = { ...this.baseEnv, PATH: this.pathFor(fault.kind === 'missing' ? 'none' : launcher ? 'launcher' : 'standin') };
    try {
      await Promise.all(round.steps.map((step) => this.runStep(step, model, env)));
    } finally {
      if (heldLock) rmSync(this.lockFile, { force: true });
    }
  }

  private async runStep(step: Step, model: Model, env: NodeJS.ProcessEnv): Promise<void> {
    switch (step.op) {
      case 'typed':
      case 'repeat': {
        const typed = this.typedFor(step, model);
        if (!typed) return;
        const ran = await this.start(['checkpoint', '--cwd', this.dir, '--message', typed.words, ...(typed.issue ? ['--issue', typed.issue] : [])], env, step.interrupt);
        const outcome = outcomeOf(ran, ran.stdout);
        typed.outcomes.push(outcome);
        if (outcome.kind === 'killed') return;
        // Whatever the CLI did, typed words are kept: written, queued, or parked to be sent again.
        expect(['written', 'queued', 'parked'], `typed ${JSON.stringify(typed.words)} answered: ${ran.stdout}${ran.stderr}`).toContain(outcome.kind);
        expect('issueId' in outcome && outcome.issueId, `typed ${JSON.stringify(typed.words)}: on the issue asked for`).toBe(typed.issue ?? IN_PROGRESS);
        expect(ran.code, ran.stdout).toBe(outcome.kind === 'parked' ? 1 : 0);
        return;
      }
      case 'auto':
      case 'pre-compact': {
        const ran =
          step.op === 'auto'
            ? await this.start(['checkpoint', '--cwd', this.dir, '--auto'], env, step.interrupt)
            : await this.start(['hook', 'claude', 'PreCompact'], env, step.interrupt, JSON.stringify({ session_id: step.session, cwd: this.dir, hook_event_name: 'PreCompact', trigger: 'auto' }));
        if (ran.killed) return;
        // A hook never fails the agent: exit 0, in time, with an answer Claude Code takes from a
        // PreCompact hook: nothing, JSON ({} after a fallback), or the plain text it adds to its
        // compaction prompt (threadFacts' compactionInstructions).
        expect(ran.code, ran.stderr).toBe(0);
        if (step.op === 'pre-compact') {
          expect(isPreCompactAnswer(ran.stdout), ran.stdout).toBe(true);
          expect(ran.elapsedMs, 'the hook answered within its deadline').toBeLessThan(HOOK_DEADLINE_MS + HOOK_SLACK_MS);
        }
        const outcome = outcomeOf(ran, step.op === 'auto' ? ran.stdout : ran.stderr);
        if (outcome.kind === 'written' || outcome.kind === 'queued') {
          expect(outcome.issueId).toBe(IN_PROGRESS);
          model.autos.push({ issueId: outcome.issueId, kind: outcome.kind });
        }
        return;
      }
      case 'retry':
        await this.start(['retry', '--cwd', this.dir, ...(step.parked ? ['--parked'] : [])], env, step.interrupt);
        return;
    }
  }

  /** The words a typed step asks for: new ones (made unique by their number), or an earlier set again. */
  private typedFor(step: Extract<Step, { op: 'typed' | 'repeat' }>, model: Model): TypedWords | undefined {
    if (step.op === 'repeat') {
      const earlier = model.typed[step.pick % Math.max(1, model.typed.length)];
      earlier?.shiftsAtRequest.push(model.shiftMs);
      return earlier;
    }
    const typed: TypedWords = { words: `${step.words} #${model.typed.length + 1}`, issue: step.issue, shiftsAtRequest: [model.shiftMs], outcomes: [] };
    model.typed.push(typed);
    return typed;
  }

  /** Runs the command line; kills it when its interrupt says so. */
  private async start(args: string[], env: NodeJS.ProcessEnv, interrupt: Interrupt, stdin?: string): Promise<Ran> {
    const ran = await this.spawnOne(args, env, interrupt, stdin);
    this.printed.push(ran.stdout, ran.stderr);
    expect(ran.hung, `beads-recovery ${args.join(' ')} was still running after ${PROCESS_LIMIT_MS} ms: ${ran.stdout}${ran.stderr}`).toBe(false);
    return ran;
  }

  private spawnOne(args: string[], env: NodeJS.ProcessEnv, interrupt: Interrupt, stdin?: string): Promise<Ran> {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd: this.dir, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (stdin !== undefined) child.stdin?.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let killed = false;
    const kill = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const timers: ReturnType<typeof setTimeout>[] = [];
    if (interrupt.kind === 'after') timers.push(setTimeout(kill, interrupt.ms));
    if (interrupt.kind === 'mid-write') {
      // Killed the moment the outbox shows one of its writes in flight: mid-write.
      const poll = setInterval(() => {
        if (this.inFlightOwners().some((owner) => owner.startsWith(`${child.pid}:`))) kill();
      }, 10);
      timers.push(poll);
    }
    let hung = false;
    timers.push(
      setTimeout(() => {
        hung = true;
        child.kill('SIGKILL');
      }, PROCESS_LIMIT_MS),
    );
    return new Promise((resolve) => {
      child.on('close', (code) => {
        for (const timer of timers) clearTimeout(timer);
        resolve({ code, stdout, stderr, elapsedMs: Date.now() - started, killed, hung });
      });
    });
  }

  /**
   * Sends the queue with no faults until nothing waits: what a person does after an outage. First
   * `retry`, which must leave parked only what beads refused (the refusing fault); then
   * `retry --parked`, which sends those too.
   */
  recover(): void {
    writeFileSync(this.faultFile, '');
    this.sendUntil(false, (outbox) => outbox.pending.length === 0);
    for (const parked of this.outbox().failed) expect(`${parked.reason}: ${parked.error}`, 'parked while beads was merely failing').toMatch(/^rejected: .*stand-in fault \(exit 4\)/);
    this.sendUntil(true, (outbox) => outbox.pending.length === 0 && outbox.failed.length === 0);
  }

  private sendUntil(parked: boolean, drained: (outbox: OutboxFile) => boolean): void {
    const env = { ...this.baseEnv, PATH: this.pathFor('standin') };
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ran = spawnSync(process.execPath, [CLI_SCRIPT, 'retry', '--cwd', this.dir, ...(parked ? ['--parked'] : [])], { cwd: this.dir, env, encoding: 'utf8', timeout: PROCESS_LIMIT_MS });
      this.printed.push(ran.stdout, ran.stderr);
      // Plain `retry` exits 1 while refused writes wait, as the README says; those are what the
      // first pass must leave behind, so its exit code alone does not say it is done.
      if ((ran.status === 0 || (!parked && ran.status === 1)) && drained(this.outbox())) return;
      // A write lock a killed writer left is free at once (its process is gone); one it cannot judge goes stale after the stand-in's ten seconds.
      expect(Date.now() < deadline, `the queue did not drain without faults: ${ran.stdout}${ran.stderr}`).toBe(true);
      spawnSync('sleep', ['1']);
    }
  }

  checkFinal(model: Model): void {
    // No damaged state: every issue line and every state file parses, nothing was set aside.
    const lines = readFileSync(path.join(this.dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    const stateDir = path.dirname(this.outboxFile);
    for (const name of readdirSync(stateDir)) {
      expect(name, 'a damaged state file was set aside').not.toMatch(/damaged|corrupt/i);
      if (name.endsWith('.json')) expect(() => JSON.parse(readFileSync(path.join(stateDir, name), 'utf8')) as unknown, name).not.toThrow();
    }
    expect(this.printed.filter((text) => /damaged/i.test(text))).toEqual([]);
    expect(this.printed.filter((text) => / directly \(/.test(text)), 'a write went around the queue').toEqual([]);

    const landed = this.comments().filter((comment) => !this.initialComments.has(`${comment.issueId}\0${comment.text}`));
    // Nothing lands on an issue nobody asked for; automatic checkpoints only on the one in progress.
    for (const comment of landed) {
      expect(TARGETS as readonly string[], comment.text).toContain(comment.issueId);
      if (comment.text.startsWith('Auto-checkpoint')) expect(comment.issueId, comment.text).toBe(IN_PROGRESS);
    }

    // Typed words: reported, they landed exactly once on their issue; retried within the window, once in all.
    const allowedTwice = new Set<string>();
    for (const typed of model.typed) {
      const copies = landed.filter((comment) => comment.text === `Checkpoint: ${typed.words}` || comment.text.startsWith(`Checkpoint: ${typed.words}\n`));
      for (const copy of copies) expect(copy.issueId, `${typed.words} landed on the wrong issue`).toBe(typed.issue ?? IN_PROGRESS);
      const first = typed.shiftsAtRequest[0] ?? 0;
      // Asked again once time had moved on past the window (give or take the test's own minutes): a new checkpoint.
      const windowClosed = typed.shiftsAtRequest.some((shift) => shift - first >= SAME_WORDS_WINDOW_MS - 5 * 60_000);
      if (windowClosed) for (const copy of copies) allowedTwice.add(`${copy.issueId}\0${copy.text}`);
      expect(copies.length, `${typed.words}: copies (outcomes ${JSON.stringify(typed.outcomes)})`).toBeLessThanOrEqual(windowClosed ? typed.shiftsAtRequest.length : 1);
      if (typed.outcomes.some((outcome) => outcome.kind === 'written' || outcome.kind === 'queued' || outcome.kind === 'parked')) {
        expect(copies.length, `${typed.words} was reported ${JSON.stringify(typed.outcomes)} and must land`).toBeGreaterThanOrEqual(1);
      }
    }

    // Nothing doubled.
    const byText = new Map<string, number>();
    for (const comment of landed) byText.set(`${comment.issueId}\0${comment.text}`, (byText.get(`${comment.issueId}\0${comment.text}`) ?? 0) + 1);
    for (const [text, count] of byText) if (!allowedTwice.has(text)) expect(count, `landed twice: ${text}`).toBe(1);

    // The outbox's record against beads: each landing it counts is there, and each checkpoint there is one it counts.
    const outbox = this.outbox();
    const doneHashes = new Map<string, number>();
    for (const entry of outbox.done) {
      if (entry.supersededBy !== undefined) {
        expect(this.statusOf(outbox, entry.supersededBy), `${entry.key} was merged into ${entry.supersededBy}, which must have landed`).toBe('done');
        continue;
      }
      if (entry.textHash !== undefined) doneHashes.set(`${entry.issueId}\0${entry.textHash}`, (doneHashes.get(`${entry.issueId}\0${entry.textHash}`) ?? 0) + 1);
    }
    const landedHashes = new Map<string, number>();
    for (const comment of landed) {
      const key = `${comment.issueId}\0${textHash(comment.text)}`;
      landedHashes.set(key, (landedHashes.get(key) ?? 0) + 1);
    }
    for (const [key, count] of doneHashes) {
      expect(landedHashes.get(key) ?? 0, `the outbox counts ${key} as landed ${count} time(s)`).toBeGreaterThanOrEqual(1);
      expect(landedHashes.get(key) ?? 0, `the outbox counts ${key} as landed ${count} time(s)`).toBeLessThanOrEqual(count);
    }
    for (const comment of landed) expect(doneHashes.has(`${comment.issueId}\0${textHash(comment.text)}`), `in beads on ${comment.issueId} but not counted by the outbox: ${comment.text}`).toBe(true);

    // An automatic checkpoint reported written or queued left one on its issue (queued ones of an issue merge).
    if (model.autos.length > 0) expect(landed.filter((comment) => comment.text.startsWith('Auto-checkpoint')).length).toBeGreaterThanOrEqual(1);

    expect(this.leftovers(), 'processes the program started still run').toEqual([]);
  }

  /** Ends whatever is left (after a failure), so one program's processes never outlive it. */
  endLeftovers(): void {
    for (const line of this.leftovers()) {
      try {
        process.kill(Number(line.split(' ')[0]), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  /** The processes carrying this program's marker: every one it started, and their children. */
  private leftovers(): string[] {
    if (process.platform !== 'linux') {
      return spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout.split('\n').filter((line) => line.includes(this.dir) || line.includes(STANDIN_BIN_DIR));
    }
    const found: string[] = [];
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`BEADS_WRITE_PATH_MODEL=${this.marker}`)) {
          found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')}`);
        }
      } catch {
        // ended meanwhile, or not ours to read
      }
    }
    return found;
  }

  private edit(round: Round): void {
    for (const file of round.edits) {
      mkdirSync(path.join(this.dir, 'src'), { recursive: true });
      appendFileSync(path.join(this.dir, 'src', `part${file}.ts`), `// change ${Date.now()}\n`);
    }
    if (round.commit && round.edits.length > 0) {
      execFileSync('git', ['add', '-A', 'src'], { cwd: this.dir, env: this.baseEnv });
      execFileSync('git', ['commit', '-q', '-m', `work on ${round.edits.join(', ')}`], { cwd: this.dir, env: this.baseEnv });
    }
  }

  /** Time moves on: every time the outbox stored is moved back by as much (no process runs now). */
  private moveTimeOn(ms: number): void {
    if (!existsSync(this.outboxFile)) return;
    const state = JSON.parse(readFileSync(this.outboxFile, 'utf8')) as OutboxFile;
    const back = (value: unknown) => (typeof value === 'number' ? value - ms : value);
    for (const entry of state.pending) {
      entry.enqueuedAt = back(entry.enqueuedAt) as number;
      entry.nextAttemptAt = back(entry.nextAttemptAt) as number;
      if (entry.inFlight) entry.inFlight.since = back(entry.inFlight.since) as number;
    }
    for (const entry of state.failed) {
      entry.enqueuedAt = back(entry.enqueuedAt) as number;
      entry.failedAt = back(entry.failedAt) as number;
    }
    for (const entry of state.done) entry.at = back(entry.at) as number;
    for (const clock of Object.values(state.clocks ?? {})) clock.measuredAt = back(clock.measuredAt) as number;
    const temp = `${this.outboxFile}.moved`;
    writeFileSync(temp, JSON.stringify(state));
    renameSync(temp, this.outboxFile);
  }

  private pathFor(which: 'standin' | 'launcher' | 'none'): string {
    const rest = process.env.PATH ?? '';
    if (which === 'none') return rest;
    return `${which === 'launcher' ? path.join(STANDIN_BIN_DIR, 'launcher') : STANDIN_BIN_DIR}${path.delimiter}${rest}`;
  }

  private outbox(): OutboxFile {
    if (!existsSync(this.outboxFile)) return { pending: [], failed: [], done: [] };
    return JSON.parse(readFileSync(this.outboxFile, 'utf8')) as OutboxFile;
  }

  private inFlightOwners(): string[] {
    try {
      return this.outbox().pending.flatMap((entry) => (entry.inFlight ? [entry.inFlight.owner] : []));
    } catch {
      return []; // caught between a write's truncation and its rename
    }
  }

  private statusOf(outbox: OutboxFile, key: string, seen = new Set<string>()): string {
    if (outbox.pending.some((entry) => entry.write.key === key)) return 'pending';
    const done = outbox.done.find((entry) => entry.key === key);
    seen.add(key);
    if (done?.supersededBy !== undefined && !seen.has(done.supersededBy)) return this.statusOf(outbox, done.supersededBy, seen);
    return done ? 'done' : 'unknown';
  }

  private comments(): { issueId: string; text: string }[] {
    return readFileSync(path.join(this.dir, '.beads', 'issues.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        const issue = JSON.parse(line) as { id?: string; comments?: { text?: string }[] };
        return (issue.comments ?? []).map((comment) => ({ issueId: issue.id ?? '', text: comment.text ?? '' }));
      });
  }
}

interface OutboxFile {
  pending: { write: { key: string }; enqueuedAt: number; nextAttemptAt: number; inFlight?: { owner: string; since: number } }[];
  failed: { enqueuedAt: number; failedAt: number; reason: string; error: string }[];
  done: { key: string; issueId: string; at: number; textHash?: string; supersededBy?: string }[];
  clocks?: Record<string, { measuredAt: number }>;
}

/** What one process answered about its checkpoint, read from its line. */
function outcomeOf(ran: Ran, text: string): Outcome {
  if (ran.killed) return { kind: 'killed' };
  const match =
    /checkpoint written on (\S+?)(?: directly \(|: )/.exec(text) ?? /checkpoint for (\S+) queued \(/.exec(text) ?? /could not write the checkpoint on (\S+?): /.exec(text) ?? /nothing new on (\S+) since/.exec(text);
  if (!match) return { kind: 'other', text };
  const kind = match[0].startsWith('checkpoint written') ? 'written' : match[0].startsWith('checkpoint for') ? 'queued' : match[0].startsWith('could not') ? 'parked' : 'nothing-new';
  return { kind, issueId: match[1] as string };
}

/** The stand-in's fault line for a fault (test/fixtures/standin/README.md); missing and lock-held are made otherwise. */
function faultLine(fault: Fault): string {
  switch (fault.kind) {
    case 'slow':
      return `slow:${fault.ms} ${fault.scope}`;
    case 'hang':
    case 'locked':
    case 'garbage':
      return `${fault.kind} ${fault.scope}`;
    case 'launcher-hang':
      return 'hang';
    case 'refusing':
      return 'exit:4 write';
    case 'failing':
      return 'exit:1 write';
    case 'landed-then-hang':
      return 'after:hang write';
    case 'landed-then-garbage':
      return 'after:garbage write';
    case 'none':
    case 'missing':
    case 'lock-held':
    case 'same':
      return '';
  }
}

/** What the program's checkpoints answered, counted: what a seed exercised. */
function summary(model: Model): string {
  const counts = new Map<string, number>();
  const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1);
  for (const typed of model.typed) for (const outcome of typed.outcomes) count(`typed ${outcome.kind}`);
  for (const auto of model.autos) count(`automatic ${auto.kind}`);
  return [...counts].map(([what, n]) => `${n} ${what}`).join(', ') + `, time moved ${model.shiftMs / 60_000} min`;
}

/** The outbox's name for a comment's text (src/services/outboxQueue.ts textHash). */
function textHash(text: string): string {
  const trimmed = text.trim();
  return `${fnv1a(trimmed)}:${trimmed.length}`;
}

function isPreCompactAnswer(stdout: string): boolean {
  const answer = stdout.trim();
  if (answer === '' || answer.startsWith('Beads recovery: in the summary')) return true;
  try {
    JSON.parse(answer);
    return true;
  } catch {
    return false;
  }
}
