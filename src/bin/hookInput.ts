// Reading an agent's hook input from stdin: bounded in time and size, so a caller that never
// closes its pipe, or pipes megabytes of tool output, cannot hang or bloat the hook.
import path from 'node:path';
import { parseHookInput, type HookInput } from '../core/hookProtocol';

/** The folder a hook acts on: the agent's cwd, else its first workspace root, else the project folder the agent names, else our own. */
export function hookFolder(input: HookInput | undefined, env: NodeJS.ProcessEnv): string {
  return path.resolve(input?.cwd ?? input?.workspaceRoots?.[0] ?? env.CLAUDE_PROJECT_DIR ?? env.CURSOR_PROJECT_DIR ?? process.cwd());
}

/** How long a hook waits for its stdin to close before it goes on without it. */
const STDIN_WAIT_MS = 1000;
/** More stdin than this is not hook input we can use (Cursor's postToolUse carries whole tool outputs): it is dropped unread. */
const STDIN_MAX_BYTES = 4 * 1024 * 1024;
/**
 * The hook input the agent sent, or undefined when stdin is a terminal, empty, not JSON, larger
 * than we read, or still open after a second (a caller that never closes its pipe must not hang the hook).
 */
export function readHookInput(stdin: NodeJS.ReadStream = process.stdin, waitMs = STDIN_WAIT_MS): Promise<HookInput | undefined> {
  if (stdin.isTTY) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (usable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.pause();
      // A pipe nobody closes would keep the process alive after its work is done.
      if (!stdin.readableEnded) stdin.destroy();
      resolve(usable ? parseHookInput(Buffer.concat(chunks).toString('utf8')) : undefined);
    };
    const timer = setTimeout(() => finish(true), waitMs);
    stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > STDIN_MAX_BYTES) return finish(false);
      chunks.push(chunk);
    });
    stdin.once('end', () => finish(true));
    stdin.once('error', () => finish(true));
  });
}

