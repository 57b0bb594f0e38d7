import * as vscode from 'vscode';
import { unlinked } from '../core/markdown';
import { Commands } from './commandIds';

// A notification from showInformationMessage cannot be taken back: one asking "Checkpoint now?"
// stays after the issue is closed. A reminder here is a notification whose (progress) task ends
// when it is withdrawn, so it goes away by itself once its question no longer holds. Its actions
// are links in the message, each run through one internal command that also withdraws it.

const ACT = Commands.reminderAction;

export interface ReminderAction {
  title: string;
  run(): unknown;
}

interface OpenReminder {
  end(): void;
  actions: readonly ReminderAction[];
}

export class Reminders implements vscode.Disposable {
  private readonly open = new Map<string, OpenReminder>();
  private readonly command = vscode.commands.registerCommand(ACT, (key: unknown, index: unknown) => this.act(key, index));

  /** Shows `message` with `actions` as links, unless a reminder with this key is already showing. */
  show(key: string, message: string, actions: readonly ReminderAction[]): void {
    if (this.open.has(key)) return;
    const links = actions.map((action, index) => `[${action.title}](command:${ACT}?${encodeURIComponent(JSON.stringify([key, index]))})`);
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Beads', cancellable: true }, (progress, token) => {
      // A determinate bar at 0 %: the notification is a question, not work in progress.
      progress.report({ message: `${unlinked(message)} ${links.join(' · ')}`, increment: 0 });
      return new Promise<void>((resolve) => {
        const reminder: OpenReminder = { end: resolve, actions };
        this.open.set(key, reminder);
        token.onCancellationRequested(() => this.withdraw(key));
      });
    });
  }

  /** Takes back every reminder whose key `stillHolds` does not accept. */
  withdrawUnless(stillHolds: (key: string) => boolean): void {
    for (const key of [...this.open.keys()]) if (!stillHolds(key)) this.withdraw(key);
  }

  /** Keys of the reminders showing now. */
  get showing(): string[] {
    return [...this.open.keys()];
  }

  dispose(): void {
    this.withdrawUnless(() => false);
    this.command.dispose();
  }

  private withdraw(key: string): void {
    const reminder = this.open.get(key);
    this.open.delete(key);
    reminder?.end();
  }

  private act(key: unknown, index: unknown): void {
    const reminder = typeof key === 'string' ? this.open.get(key) : undefined;
    const action = typeof index === 'number' ? reminder?.actions[index] : undefined;
    if (!action) return;
    this.withdraw(key as string);
    void action.run();
  }
}
