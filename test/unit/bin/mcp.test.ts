// `beads-recovery mcp` as an agent meets it: the built dist/cli.js spawned over stdio by the MCP
// SDK's own client, once for each handshake — the 2025 `initialize` one and the 2026-07-28
// `server/discover` one — which lists and calls the tools, reads the resource and gets the prompt.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client, ProtocolError, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT as cli, ensureCliBuilt, REPO as repo } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-mcp-'));

const HANDSHAKES: { era: 'legacy' | 'modern'; options: ClientOptions }[] = [
  // The SDK client's default: `initialize`, then `notifications/initialized`.
  { era: 'legacy', options: {} },
  // Protocol 2026-07-28 only: `server/discover`, no fallback to `initialize`.
  { era: 'modern', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
];

describe.each(HANDSHAKES)('beads-recovery mcp with the SDK client over stdio, $era handshake (stand-in br)', { timeout: 90_000 }, ({ era, options }) => {
  let dir: string;
  let client: Client;

  function comments(id: string): string[] {
    const lines = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
    const issue = lines.map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === id);
    return (issue?.comments ?? []).map((comment) => comment.text);
  }

  beforeAll(async () => {
    ensureCliBuilt();
    dir = makeWorkspace({ dir: path.join(scratch, era), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    client = new Client({ name: 'beads-recovery-test', version: '1.0.0' }, options);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'mcp'],
        cwd: dir,
        env: { ...env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' },
        stderr: 'pipe',
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  it(`answers the ${era} handshake with its name, version, capabilities and instructions`, () => {
    expect(client.getProtocolEra()).toBe(era);
    expect(client.getServerVersion()).toEqual({ name: 'beads-recovery', version: JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')).version });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    const instructions = client.getInstructions() ?? '';
    expect(instructions.slice(0, 512)).toContain('get_recovery_context');
    if (era === 'modern') expect(client.getDiscoverResult()).toMatchObject({ supportedVersions: expect.arrayContaining(['2026-07-28']), instructions });
  });

  it('lists the two tools, and get_recovery_context returns the context', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_recovery_context', 'write_checkpoint']);
    expect(tools.find((tool) => tool.name === 'write_checkpoint')?.inputSchema).toMatchObject({ type: 'object', required: ['summary'] });
    const result = await client.callTool({ name: 'get_recovery_context', arguments: {} });
    const [content] = result.content as { type: string; text: string }[];
    expect(content!.type).toBe('text');
    expect(content!.text).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
    expect(Buffer.byteLength(content!.text, 'utf8')).toBeLessThanOrEqual(2048);
  });

  it('write_checkpoint writes the agent\'s summary on the in-progress issue, with the changed files', async () => {
    writeFileSync(path.join(dir, 'mcp-work.ts'), 'export {};\n');
    const before = comments(SCENARIO.inProgress).length;
    const result = await client.callTool({ name: 'write_checkpoint', arguments: { summary: 'Parser done; next: validation' } });
    expect(result.isError).toBe(false);
    expect((result.content as { text: string }[])[0]!.text).toMatch(new RegExp(`checkpoint written on ${SCENARIO.inProgress}`));
    const added = comments(SCENARIO.inProgress).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^Checkpoint: Parser done; next: validation/);
    expect(added[0]).toContain('mcp-work.ts');
  });

  it('write_checkpoint takes a summary that starts with "-" as words, never as an option', async () => {
    writeFileSync(path.join(dir, 'mcp-bullet.ts'), 'export {};\n');
    const result = await client.callTool({ name: 'write_checkpoint', arguments: { summary: '- parser done; next: --validation' } });
    expect(result.isError, JSON.stringify(result.content)).toBe(false);
    expect(comments(SCENARIO.inProgress).at(-1)).toMatch(/^Checkpoint: - parser done; next: --validation/);
  });

  it('serves the context as a resource and the recover prompt', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'beads-recovery://context', mimeType: 'text/markdown' })]);
    const read = await client.readResource({ uri: 'beads-recovery://context' });
    expect((read.contents[0] as { text: string }).text).toMatch(/^## Resuming: /m);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['recover']);
    const prompt = await client.getPrompt({ name: 'recover' });
    expect(prompt.messages[0]!.role).toBe('user');
    expect((prompt.messages[0]!.content as { text: string }).text).toMatch(/^## Resuming: /m);
  });

  it('answers unknown arguments and an unknown tool with a JSON-RPC error (invalid params), and keeps serving', async () => {
    const invalidParams = (pattern: RegExp) => (error: unknown) => error instanceof ProtocolError && error.code === -32602 && pattern.test(error.message);
    await expect(client.callTool({ name: 'get_recovery_context', arguments: { verbose: true } })).rejects.toSatisfy(invalidParams(/Invalid arguments for get_recovery_context: .*verbose/s));
    await expect(client.callTool({ name: 'write_checkpoint', arguments: { summary: 'x', issue: 'demo-2' } })).rejects.toSatisfy(invalidParams(/issue/));
    await expect(client.callTool({ name: 'write_checkpoint', arguments: { summary: 42 } })).rejects.toSatisfy(invalidParams(/summary/));
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toSatisfy(invalidParams(/Unknown tool 'no_such_tool'/));
    expect((await client.listTools()).tools).toHaveLength(2);
  });
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('beads-recovery mcp on the wire', { timeout: 60_000 }, () => {
  it('answers a server/discover probe and then, on the same process, the initialize a dual-era client falls back to', async () => {
    ensureCliBuilt();
    const dir = makeWorkspace({ dir: path.join(scratch, 'wire'), dialect: 'br', data: 'scenario', git: true }).dir;
    const child = spawn(process.execPath, [cli, 'mcp'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const exchange = async (message: object) => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      return JSON.parse(String((await lines.next()).value)) as { id: number; result: Record<string, unknown> };
    };
    const discover = await exchange({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    });
    const initialize = await exchange({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } } });
    // Closing stdin ends the session: the server exits by itself.
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(discover).toMatchObject({
      id: 1,
      result: {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {}, resources: {}, prompts: {} },
        instructions: expect.stringContaining('get_recovery_context'),
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'beads-recovery' } },
      },
    });
    expect(initialize).toMatchObject({ id: 2, result: { protocolVersion: '2025-11-25', serverInfo: { name: 'beads-recovery' }, capabilities: { tools: {} } } });
  });
});
