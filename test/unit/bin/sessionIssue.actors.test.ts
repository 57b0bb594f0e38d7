// A town of agents: three actors each hold an in-progress issue of one tracker. Each actor's
// context resumes its own issue — from the command line and from a hook — however it names
// itself to the CLI (the flag, BEADS_ACTOR, BD_ACTOR, beads' config), in both dialects, even
// though another actor's issue is newer. Runs the built dist/cli.js over the stand-in CLIs.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-actors-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Dialect = 'bd' | 'br';
/** How each actor names itself: an environment, or the flag (given to the CLI and to `context`). */
interface Naming {
  actor: string;
  env: NodeJS.ProcessEnv;
  flag?: string;
}

// Neither the login nor git's name matches anyone: only the actor's own naming can find its issue.
const BASE_ENV = { USER: 'somebody-else', GIT_CONFIG_GLOBAL: path.join(scratch, 'no-gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };

const NAMINGS: Record<Dialect, Naming[]> = {
  bd: [
    { actor: 'alice', env: { BEADS_ACTOR: 'alice' } },
    { actor: 'bob', env: { BD_ACTOR: 'bob' } },
    { actor: 'carol', env: {}, flag: 'carol' },
  ],
  br: [
    { actor: 'alice', env: { BD_ACTOR: 'alice' } },
    { actor: 'bob', env: {}, flag: 'bob' },
    // br's claims read BD_ACTOR and the config, never BEADS_ACTOR.
    { actor: 'carol', env: { BD_ACTOR: 'carol', BEADS_ACTOR: 'someone-else' } },
  ],
};

function town(dialect: Dialect): { dir: string; env: NodeJS.ProcessEnv; held: Map<string, string> } {
  const dir = path.join(scratch, dialect);
  makeWorkspace({ dir, dialect, data: 'empty' });
  // bd's own fallback would be git's user.name, which the workspace sets: no actor of the town.
  execFileSync('git', ['config', 'user.name', 'Somebody Else'], { cwd: dir });
  const env = { ...process.env, ...BASE_ENV, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: dialect };
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => execFileSync(dialect, args, { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8' });
  const held = new Map<string, string>();
  for (const naming of NAMINGS[dialect]) {
    const created = JSON.parse(cli(['create', `${naming.actor}'s work`, '--json'])) as { id: string } | { id: string }[];
    const id = Array.isArray(created) ? (created[0]?.id as string) : created.id;
    cli([...(naming.flag ? ['--actor', naming.flag] : []), 'update', '--claim', '--json', '--', id], naming.env);
    held.set(naming.actor, id);
  }
  return { dir, env, held };
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv, input = '') {
  const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], { cwd, env, input, encoding: 'utf8', timeout: 30_000 });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

describe.each(['bd', 'br'] as const)('three actors on one %s tracker', { timeout: 60_000 }, (dialect) => {
  let project: ReturnType<typeof town>;
  beforeAll(() => {
    project = town(dialect);
  });

  it('the claims went to the three actors (the stand-in resolved them as the CLI does)', () => {
    const listed = JSON.parse(execFileSync(dialect, ['list', '--status', 'in_progress', '--json', '--limit', '0'], { cwd: project.dir, env: project.env, encoding: 'utf8' })) as unknown;
    const issues = (Array.isArray(listed) ? listed : (listed as { issues: unknown[] }).issues) as { id: string; assignee?: string }[];
    expect(new Map(issues.map((issue) => [issue.assignee, issue.id]))).toEqual(project.held);
  });

  it.each(NAMINGS[dialect].map((naming) => [naming.actor, naming] as const))('%s resumes its own issue from the command line', (actor, naming) => {
    const markdown = run(['context', '--cwd', project.dir, ...(naming.flag ? ['--actor', naming.flag] : [])], project.dir, { ...project.env, ...naming.env });
    expect(markdown).toContain(`## Resuming: ${project.held.get(actor)} — ${actor}'s work`);
    expect(markdown).toMatch(new RegExp(`\\*\\*Why this issue:\\*\\* assigned to ${actor} \\((--actor|BEADS_ACTOR|BD_ACTOR)\\)`));
  });

  it.each(NAMINGS[dialect].filter((naming) => !naming.flag).map((naming) => [naming.actor, naming] as const))('%s resumes its own issue from a hook', (actor, naming) => {
    const input = JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', session_id: `session-of-${actor}`, cwd: project.dir });
    const answer = JSON.parse(run(['hook', 'claude', 'SessionStart'], project.dir, { ...project.env, ...naming.env }, input)) as { hookSpecificOutput?: { additionalContext?: string } };
    expect(answer.hookSpecificOutput?.additionalContext).toContain(`## Resuming: ${project.held.get(actor)} — ${actor}'s work`);
  });

  it("an actor who holds nothing is handed none of the others' issues", () => {
    const markdown = run(['context', '--cwd', project.dir, '--actor', 'dave'], project.dir, project.env);
    expect(markdown).not.toContain('## Resuming:');
    for (const id of project.held.values()) expect(markdown).not.toContain(id);
  });

  it("beads' config names the actor when nothing else does", () => {
    const config = path.join(project.dir, '.beads', 'config.yaml');
    const original = readFileSync(config, 'utf8');
    writeFileSync(config, `${original}\nactor: "bob" # this checkout\n`);
    try {
      const markdown = run(['context', '--cwd', project.dir], project.dir, project.env);
      expect(markdown).toContain(`## Resuming: ${project.held.get('bob')} — bob's work`);
      expect(markdown).toContain('assigned to bob (beads config)');
    } finally {
      writeFileSync(config, original);
    }
  });
});
