// The MCP server under stress (issue 32, item 4), on the wire against the built dist/cli.js and
// the stand-in br: a request over the size limit gets a JSON-RPC error and the server goes on
// serving (the SDK's transport used to close the connection, and nothing was answered for the
// rest of the session); a write_checkpoint still running when the client closes stdin is finished
// before the process exits (it used to be aborted: no comment, nothing queued).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitLines, type OversizedMessage } from '../../../src/bin/mcpStdin';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-mcp-stress-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeAll(() => ensureCliBuilt(), 120_000);

const baseEnv = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

function server(dir: string, extra: Record<string, string> = {}): { child: ChildProcessWithoutNullStreams; next: () => Promise<Record<string, unknown>>; send: (message: object) => void; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [CLI_SCRIPT, 'mcp'], { cwd: dir, env: { ...baseEnv, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${baseEnv.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', ...extra }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    next: async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    exited,
    stderr: () => stderr,
  };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stress', version: '1' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

function commentsOf(dir: string, id: string): string[] {
  const lines = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
  const issue = lines.map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === id);
  return (issue?.comments ?? []).map((comment) => comment.text);
}

describe('the MCP server under stress', { timeout: 120_000 }, () => {
  it('answers a request over its size limit with a JSON-RPC error naming the limit, and keeps serving', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'oversize'), dialect: 'br', data: 'scenario', git: true }).dir;
    const mcp = server(dir);
    try {
      mcp.send(initialize);
      expect(await mcp.next()).toMatchObject({ id: 1, result: { serverInfo: { name: 'beads-recovery' } } });
      mcp.send(initialized);
      // 12 MiB of summary, over the 10 MiB limit, written in pieces as a pipe delivers it.
      mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_checkpoint', arguments: { summary: 'x'.repeat(12 * 1024 * 1024) } } });
      const refused = await mcp.next();
      expect(refused).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: expect.stringMatching(/Message too large: 12\.0 MiB, over this server's limit of 10\.0 MiB; it was not read\. The server goes on serving/) } });
      // The session goes on: the next request is answered.
      mcp.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_recovery_context', arguments: {} } });
      const context = await mcp.next();
      expect(context).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: expect.stringContaining('## Resuming: demo-1') }] } });
      expect(mcp.stderr()).toMatch(/over the limit; answered with an error/);
    } finally {
      mcp.child.stdin.end();
      expect(await mcp.exited).toBe(0);
    }
  });

  it('finishes a write_checkpoint still running when the client closes stdin, then exits', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'closing'), dialect: 'br', data: 'scenario', git: true }).dir;
    writeFileSync(path.join(dir, 'parser.ts'), 'export {}\n');
    // Every br call takes a second: the write is still running when stdin closes.
    const faultFile = path.join(scratch, 'slow');
    writeFileSync(faultFile, 'slow:1000\n');
    const mcp = server(dir, { BEADS_STANDIN_FAULT_FILE: faultFile });
    mcp.send(initialize);
    await mcp.next();
    mcp.send(initialized);
    mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_checkpoint', arguments: { summary: 'words written as the client left' } } });
    mcp.child.stdin.end();
    expect(await mcp.exited).toBe(0);
    const landed = commentsOf(dir, 'demo-1').filter((text) => text.startsWith('Checkpoint: words written as the client left'));
    const outbox = path.join(dir, '.git', 'beads-recovery', 'outbox.json');
    const queued = existsSync(outbox) ? (JSON.parse(readFileSync(outbox, 'utf8')) as { pending: { write: { text?: string } }[] }).pending.filter((entry) => entry.write.text?.startsWith('Checkpoint: words written as the client left')) : [];
    // Landed once, or at least kept in the outbox: never dropped, never both.
    expect(landed.length + queued.length, mcp.stderr()).toBe(1);
    expect(landed, mcp.stderr()).toHaveLength(1);
  });
});

describe('limitLines', () => {
  async function through(chunks: (string | Buffer)[], limit: number): Promise<{ lines: string[]; oversized: OversizedMessage[] }> {
    const oversized: OversizedMessage[] = [];
    const input = limitLines((message) => oversized.push(message), limit);
    const out: Buffer[] = [];
    input.stream.on('data', (chunk: Buffer) => out.push(chunk));
    const done = new Promise((resolve) => input.stream.on('end', resolve));
    for (const chunk of chunks) input.stream.write(chunk);
    input.stream.end();
    await done;
    expect(input.ended).toBe(true);
    return { lines: Buffer.concat(out).toString('utf8').split('\n').filter((line) => line !== ''), oversized };
  }

  it('passes lines within the limit whole, however the chunks cut them, and skips a longer one with its id', async () => {
    const { lines, oversized } = await through(['{"id":1}\n{"jsonrpc":"2.0","id":"a-', '7","params":{"x":"', 'y'.repeat(50), '"}}\n{"id', '":2}\n'], 40);
    expect(lines).toEqual(['{"id":1}', '{"id":2}']);
    expect(oversized).toEqual([{ id: 'a-7', bytes: 96 }]);
  });

  it('finds no id named after the params (an id inside them is not the request\'s), and answers an unfinished last line too', async () => {
    const { lines, oversized } = await through(['{"params":{"id":5,"x":"', 'y'.repeat(60), '"},"id":9}\n', '{"id":3,"params":"', 'z'.repeat(60)], 40);
    expect(lines).toEqual([]);
    expect(oversized.map((message) => message.id)).toEqual([null, 3]);
  });
});
