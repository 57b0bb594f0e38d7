import * as vscode from 'vscode';
import type { LastClose } from '../core/next';
import { showInformationMessage } from './notify';
import type { LedgerSummary, RecoveryResult } from '../core/recovery';
import { errorMessage } from '../core/errors';
import { unsentComments } from '../services/checkpointFlow';
import { describeDamage } from '../services/durableJson';
import { LocalThreadsStore } from '../services/localThreads';
import type { Outbox } from '../services/outbox';
import { produceRecoveryContext, type RecoveryRequest } from '../services/recovery';
import { reportErrors, withAbortSignal } from './commandErrors';
import { Commands } from './commandIds';
import { readSettings } from './config';
import { inject } from './inject';
import type { Project, ProjectRegistry } from './projects';
import { vscodeSessionFacts } from './agentSessions';

const NOT_BEADS = 'Beads: no beads project in this workspace (no .beads directory). Run `bd init` or `br init` to start one.';

/** Produces recovery contexts for the project a command acts on. */
export class RecoveryProvider {
  /**
   * Runs before every context is produced: automatic checkpoints are written and the outbox
   * drained (bounded), so the context reads them back from beads. Must not throw.
   */
  beforeRecovery: ((project: Project, signal?: AbortSignal) => Promise<void>) | undefined;

  /** The issue the user focuses and its ledger (activity tracking); without it, the most recently updated issue. */
  focusOf: ((project: Project) => { focusedId?: string; ledger?: LedgerSummary }) | undefined;
  /** The project's last close not followed up yet, so the context's "next" is the sidebar's. */
  lastCloseOf: ((project: Project) => Promise<LastClose | undefined>) | undefined;
  /**
   * What this machine holds that beads does not: comments refused or still queued, and the threads
   * kept here (`beadsRecovery.thread.destination: local`), as the hooks' and command line's contexts show them.
   */
  notInBeadsOf: ((project: Project) => Promise<Pick<RecoveryRequest, 'unsent' | 'localThreads'>>) | undefined;

  constructor(private readonly projects: ProjectRegistry) {}

  /** The recovery context of the picked project, or undefined when the user cancelled the pick. */
  async produce(token?: vscode.CancellationToken): Promise<RecoveryResult | undefined> {
    return this.produceFor(await this.projects.pickProject(), token);
  }

  /** The recovery context of `project`, chosen by the caller (agent surfaces never ask); undefined: no beads project. */
  async produceFor(project: Project | undefined, token?: vscode.CancellationToken): Promise<RecoveryResult> {
    const folderUri = project?.folder.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const settings = readSettings(folderUri);
    return withAbortSignal(token, async (signal) => {
      if (project && this.beforeRecovery) await this.beforeRecovery(project, signal);
      const focus = project ? this.focusOf?.(project) : undefined;
      return produceRecoveryContext({
        backend: project?.backend ?? null,
        workingFolder: folderUri?.fsPath ?? '.',
        cli: project?.cli ?? 'br',
        focusedId: focus?.focusedId,
        // This window is a session too: Focus Issue… binds it; else the actor, the focus, the newest.
        session: project ? await vscodeSessionFacts(project, signal) : undefined,
        ledger: focus?.ledger,
        lastClose: project ? await this.lastCloseOf?.(project) : undefined,
        ...(project ? await this.notInBeadsOf?.(project) : undefined),
        budget: settings.recoveryBudgetBytes,
        // The rules are in, so bd's memories are too: no prime reaches what is copied or injected from here.
        withMemories: true,
        now: Date.now(),
        timeoutMs: settings.cliTimeoutMs,
        signal,
      });
    });
  }
}

/**
 * What this machine holds for `project` that beads does not (RecoveryProvider.notInBeadsOf): the
 * outbox's refused and queued comments, and the threads kept beside the ledger unless the thread is
 * off now. What cannot be read is logged and left out, as the command line says it on stderr.
 */
export async function notInBeads(
  project: Project,
  place: { outbox?: Outbox; ledgerFile?: string },
  log: vscode.LogOutputChannel,
): Promise<Pick<RecoveryRequest, 'unsent' | 'localThreads'>> {
  const threadOff = readSettings(project.folder.uri).threadDestination === 'off';
  const localThreads =
    threadOff || place.ledgerFile === undefined
      ? undefined
      : await LocalThreadsStore.besideLedger(place.ledgerFile, { onDamage: (report) => log.warn(describeDamage('threads kept on this machine', report)) })
          .threads()
          .catch((error: unknown) => {
            log.warn(`the threads kept on this machine could not be read: ${errorMessage(error)}`);
            return undefined;
          });
  return { ...(place.outbox ? { unsent: unsentComments(place.outbox) } : {}), ...(localThreads ? { localThreads } : {}) };
}

export function registerRecoveryCommands(recovery: RecoveryProvider, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const withContext = (title: string, use: (result: RecoveryResult) => Promise<void>) => () =>
    reportErrors(log, async () => {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title, cancellable: false },
        () => recovery.produce(),
      );
      if (!result) return;
      if (result.state === 'not-beads') {
        void showInformationMessage(NOT_BEADS);
        return;
      }
      await use(result);
    });
  return [
    vscode.commands.registerCommand(
      Commands.copyRecoveryContext,
      withContext('Beads: building recovery context', async (result) => {
        await vscode.env.clipboard.writeText(result.markdown);
        const focus = result.focusedId ? ` for ${result.focusedId}` : '';
        void vscode.window.setStatusBarMessage(`$(check) Beads: recovery context${focus} copied (${result.bytes} bytes)`, 4000);
      }),
    ),
    vscode.commands.registerCommand(
      Commands.injectRecoveryContext,
      withContext('Beads: building recovery context', async (result) => {
        await inject(result.markdown);
      }),
    ),
  ];
}

