import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IssueDetails, LinkedIssue } from '../../../src/core/model';
import type { BeadsBackend } from '../../../src/beads/backend';
import { detectProject } from '../../../src/beads/detect';
import { createJsonlBackend } from '../../../src/beads/jsonlBackend';
import { SCENARIO, STANDIN_BIN_DIR, makeWorkspace } from '../../fixtures/make-workspace.mjs';

// Whole workspaces (make-workspace.mjs) served by the stand-in CLIs, and the same files read by
// the JSONL backend: the two routes must agree, and a refresh must cost a constant number of
// processes whatever the size of the project.
const base = mkdtempSync(join(tmpdir(), 'beads-workspace-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const timeoutMs = 30_000;

async function cliBackendFor(dir: string, log: string): Promise<BeadsBackend> {
  const detection = await detectProject(dir, { trusted: true, timeoutMs, pathEnv: STANDIN_BIN_DIR, env: { BEADS_STANDIN_LOG: log } });
  if (detection.kind !== 'cli') throw new Error(`expected the stand-in to serve ${dir}: ${JSON.stringify(detection)}`);
  return detection.backend;
}

function callCount(log: string): number {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length : 0;
}

function links(links: readonly LinkedIssue[]): string[] {
  // bd's show leaves out targets that do not exist (its query joins on issues); the file keeps them as unknown.
  return links.filter((link) => link.status !== 'unknown').map((link) => `${link.dependencyType}:${link.id}:${link.status}`).sort();
}

function comparable(issue: IssueDetails | undefined) {
  if (!issue) return undefined;
  return {
    id: issue.id,
    title: issue.title,
    status: issue.status,
    priority: issue.priority,
    dependencies: links(issue.dependencies),
    dependents: links(issue.dependents),
    comments: issue.comments.map((comment) => comment.text),
  };
}

describe.each(['bd', 'br'] as const)('%s scenario workspace', (dialect) => {
  const ws = makeWorkspace({ dir: join(base, `${dialect}-scenario`), dialect, data: 'scenario', git: false });
  const log = join(base, `${dialect}-scenario.log`);

  it('refreshes with three processes and reads the recovery scenario', async () => {
    const backend = await cliBackendFor(ws.dir, log);
    expect(backend.kind).toBe(dialect);
    const before = callCount(log);
    const [inProgress, ready] = await Promise.all([backend.listInProgress(), backend.listReady()]);
    const details = await backend.show([...inProgress.map((issue) => issue.id), ...ready.slice(0, 5).map((issue) => issue.id)]);
    expect(callCount(log) - before).toBe(3);

    expect(inProgress.map((issue) => issue.id)).toEqual([SCENARIO.inProgress]);
    expect(ready.map((issue) => issue.id)).toEqual(expect.arrayContaining([...SCENARIO.readyWithParent, ...SCENARIO.openBlockers]));
    for (const held of [SCENARIO.unblockedByClose, SCENARIO.stillBlockedAfterClose, SCENARIO.openChild]) {
      expect(ready.map((issue) => issue.id)).not.toContain(held);
    }
    const focused = details.find((issue) => issue.id === SCENARIO.inProgress);
    expect(links(focused?.dependencies ?? [])).toEqual(
      [
        `parent-child:${SCENARIO.epic}:open`,
        ...SCENARIO.openBlockers.map((id) => `blocks:${id}:open`),
        `blocks:${SCENARIO.closedBlocker}:closed`,
      ].sort(),
    );
    expect(links(focused?.dependents ?? [])).toEqual(
      [
        `parent-child:${SCENARIO.closedChild}:closed`,
        `parent-child:${SCENARIO.openChild}:open`,
        `blocks:${SCENARIO.unblockedByClose}:open`,
        `blocks:${SCENARIO.stillBlockedAfterClose}:open`,
      ].sort(),
    );
    expect(focused?.comments.map((comment) => comment.text)).toContain(SCENARIO.commitComment);
  });

  it('gives the same answers through the JSONL backend', async () => {
    const cli = await cliBackendFor(ws.dir, log);
    const file = createJsonlBackend({ root: ws.dir, dialect });
    expect((await file.listInProgress()).map((issue) => issue.id)).toEqual((await cli.listInProgress()).map((issue) => issue.id));
    const ready = await cli.listReady();
    expect((await file.listReady()).map((issue) => issue.id)).toEqual(ready.map((issue) => issue.id));
    const ids = [SCENARIO.inProgress, SCENARIO.epic, ...ready.map((issue) => issue.id)];
    const [fromCli, fromFile] = await Promise.all([cli.show(ids), file.show(ids)]);
    expect(fromFile.map(comparable)).toEqual(fromCli.map(comparable));
  });
});

describe.each(['bd', 'br'] as const)('%s workspace with the 5,722-line store', (dialect) => {
  const ws = makeWorkspace({ dir: join(base, `${dialect}-large`), dialect, data: 'large', git: false });
  const log = join(base, `${dialect}-large.log`);

  it('refreshes with a constant number of processes and agrees with the JSONL backend', async () => {
    const cli = await cliBackendFor(ws.dir, log);
    const before = callCount(log);
    const [inProgress, ready] = await Promise.all([cli.listInProgress(), cli.listReady()]);
    const shownIds = ready.slice(0, 20).map((issue) => issue.id);
    const details = await cli.show(shownIds);
    expect(callCount(log) - before).toBe(3);
    // Nothing there is in_progress; its `hooked` issues are bd's other work in progress (C2).
    expect(inProgress.length).toBeGreaterThan(0);
    expect(new Set(inProgress.map((issue) => issue.status))).toEqual(new Set(['hooked']));
    expect(details.map((issue) => issue.id)).toEqual(shownIds);

    const file = createJsonlBackend({ root: ws.dir, dialect });
    expect((await file.listInProgress()).map((issue) => issue.id)).toEqual(inProgress.map((issue) => issue.id));
    expect((await file.listReady()).map((issue) => issue.id)).toEqual(ready.map((issue) => issue.id));
    expect((await file.show(shownIds)).map(comparable)).toEqual(details.map(comparable));
  });
});
