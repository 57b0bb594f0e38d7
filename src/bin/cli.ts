// `beads-recovery`: the recovery context, checkpoints, agent hooks and the MCP server for agents
// outside VS Code. Same core and backends as the extension, no vscode. Built as dist/main.js,
// which dist/cli.js loads for every command but `hook` (src/bin/launch.ts, src/bin/hookMain.ts).
import { parseArgs } from 'node:util';
import { CHECKPOINT_USAGE, checkpointCommand, retryCommand } from './checkpoint';
import { DEFAULT_BUDGET_BYTES, recoveryContextFor } from './context';
import { runHook } from './hook';
import { runHookProcess } from './hookGuard';
import { readHookInput } from './hookInput';
import { HOOKS_USAGE, HookUsageError, hooksCommand } from './hooks';
import { AGENTS } from '../core/agents/profile';
import { MCP_USAGE } from './mcpUsage';
import { errorMessage } from '../core/errors';
import { endOrphanedProcesses } from '../beads/processRegistry';
import { endStartedProcessesOnSignals } from '../beads/runCli';

const USAGE = `Usage:
  beads-recovery context [--cwd DIR] [--json] [--budget N] [--format markdown|claude-hook] [--actor NAME]

Prints the recovery context of the beads project that contains DIR (default: the current folder),
for the issue that is this session's (README "Which issue is this session's?").
  --json                 print {"markdown","state","focusedId","bytes","dropped","choice"} instead of markdown
                         (choice: the rule that chose the issue, and the actor)
  --budget N             upper bound in bytes (default 2048)
  --actor NAME           who this is, as \`bd --actor\`/\`br --actor\`: the issue assigned to NAME is resumed
                         (else BEADS_ACTOR, BD_ACTOR, beads' config, git user.name, USER, in the CLI's own order)
  --format claude-hook   print Claude Code SessionStart hook output (hookSpecificOutput.additionalContext);
                         the rules are left out when bd's own \`bd prime\` already reaches Claude Code
Environment: BEADS_RECOVERY_CLI=bd|br picks the CLI, BEADS_RECOVERY_CLI_PATH names its executable,
BEADS_RECOVERY_TIMEOUT_MS bounds each CLI call (default 10000, at most 600000).
As a hook, everything ends within BEADS_RECOVERY_HOOK_DEADLINE_MS (default 20000), and the answer
is then the best known so far; a hook always exits 0.
With --format claude-hook (what 0.1.0 installed; now the same as \`hook claude SessionStart\`), the
JSON Claude Code writes to a hook's stdin is read for its cwd.

${CHECKPOINT_USAGE}

  beads-recovery hook ${AGENTS.join('|')} <event>

What the installed agent hooks run: reads the agent's hook JSON from stdin and answers in that
agent's shape (the recovery context at a new session and after a compaction, a checkpoint before
one). Always valid JSON on stdout and exit 0, within BEADS_RECOVERY_HOOK_DEADLINE_MS.

${HOOKS_USAGE}

${MCP_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // A run killed outright (a hook the agent gave up on) may have left a CLI running: ended here.
  endOrphanedProcesses({ log: (message) => process.stderr.write(`beads-recovery: ${message}\n`) });
  endStartedProcessesOnSignals();
  if (command === 'context') return contextCommand(rest);
  if (command === 'hooks') return hooksCommand(rest);
  if (command === 'mcp') return serveMcp(rest);
  if (command === 'checkpoint') return checkpointCommand(rest, { out: (line) => process.stdout.write(`${line}\n`) });
  if (command === 'retry') return retryCommand(rest, { out: (line) => process.stdout.write(`${line}\n`) });
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`beads-recovery: unknown command '${command}'\n${USAGE}\n`);
  return 2;
}

async function contextCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      cwd: { type: 'string' },
      json: { type: 'boolean', default: false },
      budget: { type: 'string' },
      format: { type: 'string', default: 'markdown' },
      actor: { type: 'string' },
    },
    strict: true,
  });
  const format = values.format;
  if (format !== 'markdown' && format !== 'claude-hook') throw new UsageError(`unknown --format '${format}'`);
  const budget = values.budget === undefined ? DEFAULT_BUDGET_BYTES : Number(values.budget);
  if (!Number.isInteger(budget) || budget < 256) throw new UsageError('--budget takes a whole number of bytes, at least 256');

  if (format === 'claude-hook') return runHookProcess(() => claudeHookAlias(values.cwd, budget));
  const result = await recoveryContextFor(values.cwd ?? process.cwd(), { budget, actor: values.actor, warn: (line) => process.stderr.write(`beads-recovery: ${line}\n`) });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : result.markdown.endsWith('\n') ? result.markdown : `${result.markdown}\n`);
  return 0;
}

/** `context --format claude-hook`, the SessionStart command 0.1.0 installed: the same answer as `hook claude SessionStart`. */
async function claudeHookAlias(cwd: string | undefined, budget: number): Promise<string> {
  const input = await readHookInput();
  const event = input?.event === 'UserPromptSubmit' ? 'UserPromptSubmit' : 'SessionStart';
  return runHook('claude', event, { readInput: () => Promise.resolve(cwd === undefined ? input : { ...input, cwd }), budget });
}

/**
 * `beads-recovery mcp`: the MCP SDK is loaded only when asked for (every agent hook starts this
 * script, and the SDK is most of its size). It never resolves: the process serves until the client
 * closes stdin, then exits by itself.
 */
async function serveMcp(args: string[]): Promise<number> {
  await (await import('./mcp')).serveMcp(args);
  return new Promise<number>(() => undefined);
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(finish, (error: unknown) => {
  const message = errorMessage(error);
  process.stderr.write(`beads-recovery: ${message}\n`);
  const usage = error instanceof UsageError || error instanceof HookUsageError;
  if (usage || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) process.stderr.write(`${USAGE}\n`);
  finish(usage ? 2 : 1);
});

/** Once the answer is out, nothing left open (a pipe a CLI's grandchild holds, a stray timer) keeps the process alive. */
function finish(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}
