import * as vscode from 'vscode';
import { showErrorMessage } from './notify';
import { CliError } from '../beads/errors';
import { errorMessage } from '../core/errors';
import { WorkRefusedError } from '../services/closeFlow';

/**
 * The one way a command reports what went wrong: a cancellation is silent, a refusal (beads said
 * no, or the work cannot be done here) is shown with its own words, anything else is also logged
 * with its stack. `title` prefixes the log line when the error text alone would not say which
 * command failed.
 */
export async function reportErrors<T>(log: vscode.LogOutputChannel, run: () => Promise<T>, title?: string): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CliError && error.kind === 'canceled') return undefined;
    // A refusal is logged in the CLI's words too: the notification goes, the log stays.
    if (error instanceof WorkRefusedError) log.warn(`${title ? `${title}: ` : ''}${errorMessage(error)}`);
    else if (title) log.error(`${title}: ${errorMessage(error)}`);
    else log.error(error instanceof Error ? error : errorMessage(error));
    void showErrorMessage(`Beads: ${errorMessage(error)}`);
    return undefined;
  }
}

/**
 * Something that failed outside a command (activation, starting a folder's tracking): logged, and
 * shown once with a way to the log, because nobody is waiting on a command to read it.
 */
export function reportFailure(log: vscode.LogOutputChannel, what: string, error: unknown): void {
  log.error(`${what}: ${errorMessage(error)}`);
  const showLog = 'Show Log';
  void showErrorMessage(`Beads: ${what}: ${errorMessage(error)}`, showLog).then((choice) => {
    if (choice === showLog) log.show();
  });
}

/**
 * Runs `work` with an AbortSignal that follows `token`, and stops listening to the token when the
 * work ends: a long-lived token (a chat session's) would otherwise keep every controller alive.
 */
export async function withAbortSignal<T>(token: vscode.CancellationToken | undefined, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!token) return work(undefined);
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const listener = token.onCancellationRequested(() => controller.abort());
  try {
    return await work(controller.signal);
  } finally {
    listener.dispose();
  }
}
