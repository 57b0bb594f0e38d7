// What the redaction step (src/services/redaction.ts) costs a PreCompact and a SessionStart hook:
// the checkpoint a PreCompact writes and the context a SessionStart gives, from the recorded Claude
// Code session, redacted the first time in this process (what one hook process pays: secretlint
// loaded and its rules compiled) and then again (each later text in the same process). The hook
// rows of hooks.mjs include it; here it stands alone. Prints, asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { recoveryContextFor } from '../../src/bin/context';
import { autoCheckpointComment } from '../../src/core/checkpoint';
import { threadFactLines } from '../../src/core/threadFacts';
import { readSessionThread } from '../../src/services/transcripts/sessionThread';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';

const RUNS = 20;

export async function benchRedaction({ repo }: { repo: string }): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-redaction-'));
  try {
    const workspace = makeWorkspace({ dir: path.join(dir, 'ws'), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
    const thread = await readSessionThread({ transcript: path.join(repo, 'test/fixtures/transcripts/claude/nested-keys.jsonl'), agent: 'claude' });
    const checkpoint = autoCheckpointComment({ issueId: 'demo-1', files: ['parser.py'], commits: [], edits: 1 }, 'pre-compaction', Date.now(), thread ? threadFactLines(thread) : []);
    const { redactText } = await import('../../src/services/redaction');
    const places = { folder: workspace, home: process.env.HOME };
    // secretlint is imported on first use: the first text redacted in this process pays for
    // loading it and compiling its rules, as every hook process that writes or shows text does once.
    const row = async (name: string, text: string) => {
      const times: number[] = [];
      for (let index = 0; index < RUNS; index++) {
        const started = performance.now();
        await redactText(text, places);
        times.push(performance.now() - started);
      }
      const later = times.slice(1).sort((a, b) => a - b);
      console.log(`${name.padEnd(32)} ${String(Buffer.byteLength(text)).padStart(6)} B   first ${times[0]!.toFixed(1).padStart(6)} ms   later p50 ${later[Math.floor(later.length / 2)]!.toFixed(2).padStart(6)} ms`);
    };
    console.log('text                               size   first: the first text redacted in this process');
    // Side by side: a text where no secretlint rule could match (only the pre-check and our own
    // shapes run), then the same with a token in it (secretlint loaded and its rules compiled).
    await row('PreCompact comment, no token', checkpoint);
    await row('PreCompact comment + a token', `${checkpoint}\n- Request: push with ghp_${'a1B2c3D4e5'.repeat(3)}123456`);
    // Produced after the first use above (a context is redacted inside): its first pass is warm here.
    const context = (await recoveryContextFor(workspace, { env, thread, budget: 9000 })).markdown;
    await row('SessionStart context (9000 B)', context);
    console.log('A SessionStart pays secretlint\'s first-use cost too (the second row\'s "first") only when its text holds a token\'s shape.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
