// `beads-recovery mcp`: a Model Context Protocol server over stdio, for any agent that speaks MCP
// (Copilot through VS Code's provider, Claude Code, Codex, Cursor). It offers the recovery context
// as a tool, a resource and the `recover` prompt, and a tool that writes the agent's checkpoint
// through the same checkpoint path and outbox as the hooks and the command line.
//
// Built on the MCP TypeScript SDK v2 (`@modelcontextprotocol/server`). Its stdio entry answers both
// eras from one server description: a client that opens with `server/discover` (protocol
// 2026-07-28, stateless, `_meta` on every request) and one that opens with the `initialize`
// handshake (2025-11-25 and earlier). Only MCP messages go to stdout; notes go to stderr.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { McpServer, ProtocolError, ProtocolErrorCode, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { version } from '../../package.json';
import { findBeadsDir } from '../beads/detect';
import { AGENT_FORMATS, AGENTS } from '../core/hookConfig';
import { AGENT_PROFILES } from '../core/agents';
import { mcpInstructions } from '../core/mcpInstructions';
import { installedEntries } from '../services/agentSetup';
import { runCheckpoint } from '../services/checkpointFlow';
import { checkpointLine } from './checkpoint';
import { recoveryContextFor } from './context';
import { errorMessage } from '../core/errors';
import { limitLines, MCP_MAX_MESSAGE_BYTES, oversizedAnswer } from './mcpStdin';

/**
 * How long write_checkpoint waits for beads before answering "queued": agents give a tool call
 * tens of seconds, and the write is durable before the CLI runs.
 */
const MCP_CHECKPOINT_MS = 15_000;

export const CONTEXT_RESOURCE_URI = 'beads-recovery://context';

interface Tool {
  title: string;
  description: string;
  input: z.ZodObject;
  annotations: ToolAnnotations;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

/**
 * The server for the project at `cwd`; not yet connected. `hooked`: the agents our hooks already
 * hand the context to (see `hookedAgents`). `sessionEnded`: whether the client closed the session
 * (stdin), which is not a reason to drop a checkpoint being written.
 */
export function createMcpServer(cwd: string, env: NodeJS.ProcessEnv = process.env, hooked: readonly string[] = [], sessionEnded: () => boolean = () => false): McpServer {
  const server = new McpServer({ name: 'beads-recovery', version }, { instructions: mcpInstructions(hooked), capabilities: { tools: {} } });
  const context = async () => (await recoveryContextFor(cwd, { env, warn: (line) => process.stderr.write(`beads-recovery: ${line}\n`) })).markdown;

  // The tools are served through the SDK's low-level handlers rather than `registerTool`, which
  // turns arguments that do not fit into a tool result: here they are a JSON-RPC error (invalid
  // params), as an unknown tool is, and only a failure of the work itself is a result.
  const tools: Record<string, Tool> = {
    get_recovery_context: {
      title: 'Beads recovery context',
      description:
        "Returns this project's beads recovery context as markdown: the workflow rules and commands of its beads CLI, the in-progress issue to resume " +
        '(status, parent, open blockers, what it unblocks), its checkpoint trail, the commits and files since the last checkpoint, and uncommitted changes; ' +
        'when nothing is in progress, the next ready issues. Call it first after a restart, a new session or a compaction. Takes no input, changes nothing.',
      input: z.object({}).strict(),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      run: async () => ({ content: [{ type: 'text', text: await context() }] }),
    },
    write_checkpoint: {
      title: 'Beads checkpoint',
      description:
        "Writes a checkpoint comment ('Checkpoint: <summary>') on this project's in-progress beads issue, with the files changed since the last one, " +
        'so the work survives a compaction, a restart or a new session. Call it when a piece of work is done, before a risky step and before you stop.',
      input: z.object({ summary: z.string().trim().min(1).max(2000).describe('One line: what is done, the approach taken, and what is next.') }).strict(),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (args, signal) => {
        const summary = String(args.summary).replace(/\s*\n\s*/g, ' ');
        // The SDK aborts every request in flight when the client closes stdin: a checkpoint being
        // written is finished anyway, within its deadline (landed, or queued in the outbox), and
        // the process exits after it. Only the client's own cancel stops it.
        const cancel = new AbortController();
        signal.addEventListener('abort', () => sessionEnded() || cancel.abort(), { once: true });
        // The checkpoint flow itself, with the summary as data: words starting with "-" are words.
        const result = await runCheckpoint(
          { ask: { message: summary }, place: { kind: 'folder', cwd, env, note: (line) => process.stderr.write(`beads-recovery: ${line}\n`) } },
          { signal: cancel.signal, deadline: Date.now() + MCP_CHECKPOINT_MS },
        );
        return { content: [{ type: 'text', text: checkpointLine(result) }], isError: result.outcome === 'failed' };
      },
    },
  };
  server.server.setRequestHandler('tools/list', () => ({
    tools: Object.entries(tools).map(([name, tool]) => ({
      name,
      title: tool.title,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.input) as { type: 'object' },
      annotations: tool.annotations,
    })),
  }));
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool '${name}'; this server has ${Object.keys(tools).join(' and ')}.`);
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`);
    try {
      return await tool.run(parsed.data as Record<string, unknown>, ctx.mcpReq.signal);
    } catch (error) {
      // The work failed, not the call: the agent reads why in a tool result it can act on.
      return { content: [{ type: 'text', text: `${name} failed: ${errorMessage(error)}` }], isError: true };
    }
  });

  server.registerResource(
    'recovery-context',
    CONTEXT_RESOURCE_URI,
    { title: 'Beads recovery context', description: 'The in-progress beads issue, its trail, commits and files, as markdown.', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await context() }] }),
  );

  server.registerPrompt(
    'recover',
    { title: 'Recover work context', description: 'Resume the in-progress beads work from its recovery context.' },
    async () => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Resume the work on this project from its beads recovery context below. Check the uncommitted changes before you continue.\n\n${await context()}`,
          },
        },
      ],
    }),
  );
  return server;
}

/**
 * `beads-recovery mcp`: serves until the client closes stdin, then exits by itself. As the MCP
 * stdio binding has it, closing stdin ends the session: the SDK answers no request still in
 * flight then, so a client keeps stdin open until it has its answers; a checkpoint being written
 * is still finished (or queued) before the process exits. A message over MCP_MAX_MESSAGE_BYTES
 * gets a JSON-RPC error and the session goes on (src/bin/mcpStdin.ts).
 */
export async function serveMcp(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { cwd: { type: 'string' } }, strict: true });
  const cwd = path.resolve(values.cwd ?? process.env.CLAUDE_PROJECT_DIR ?? process.cwd());
  const hooked = await hookedAgents(cwd).catch(() => []);
  // One server per connection; a `server/discover` probe that the client then abandons for
  // `initialize` gets its own, thrown away with the probe.
  const onerror = (error: Error) => process.stderr.write(`beads-recovery: mcp: ${error.message}\n`);
  const input = limitLines((message) => {
    process.stderr.write(`beads-recovery: mcp: a message of ${message.bytes} bytes is over the limit; answered with an error, not read\n`);
    transport.send(oversizedAnswer(message)).catch(onerror);
  });
  process.stdin.pipe(input.stream);
  // Lines reach it whole and within the limit; its own buffer only has to hold one of them.
  const transport = new StdioServerTransport(input.stream, process.stdout, { maxBufferSize: 2 * MCP_MAX_MESSAGE_BYTES });
  serveStdio(() => createMcpServer(cwd, process.env, hooked, () => input.ended), { transport, onerror });
  return 0;
}

/** The agents whose SessionStart hook of ours is installed in the project at `cwd`: they get the context without asking. */
export async function hookedAgents(cwd: string): Promise<string[]> {
  const root = (await findBeadsDir(cwd))?.root ?? cwd;
  const hooked: string[] = [];
  for (const agent of AGENTS) {
    const start = AGENT_FORMATS[agent].hooks[0]?.event;
    if ((await installedEntries(root, agent)).some((entry) => entry.event === start)) hooked.push(AGENT_PROFILES[agent].label);
  }
  return hooked;
}
