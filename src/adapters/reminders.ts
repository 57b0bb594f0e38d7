import { showInformationMessage } from './notify';

// A reminder is a plain notification with real buttons (and VS Code's own close button): no
// progress bar, no spinner, no lone Cancel. VS Code cannot take a notification back, so a
// reminder whose question stopped holding (the checkpoint was written, the issue closed) is
// marked stale instead: a click on it then says so and does nothing. Its text names what made it
// due, which stays true while it shows ("20 edits or more"), never a count that freezes.

export interface ReminderAction {
  title: string;
  run(): unknown;
}

export class Reminders {
  /** Keys of the reminders showing, and whether their question still holds. */
  private readonly open = new Map<string, { stale: boolean }>();

  /**
   * Shows `message` with `actions` as buttons, unless a reminder with this key is showing. A
   * click on a stale reminder says `staleMessage` and runs nothing.
   */
  show(key: string, message: string, actions: readonly ReminderAction[], staleMessage: string): void {
    if (this.open.has(key)) return;
    const state = { stale: false };
    this.open.set(key, state);
    void showInformationMessage(message, ...actions.map((action) => action.title)).then((choice) => {
      if (this.open.get(key) === state) this.open.delete(key);
      const action = actions.find((candidate) => candidate.title === choice);
      if (!action) return;
      if (state.stale) void showInformationMessage(staleMessage);
      else void action.run();
    });
  }

  /** Marks stale every reminder whose key `stillHolds` does not accept; a new one may then be shown. */
  withdrawUnless(stillHolds: (key: string) => boolean): void {
    for (const [key, state] of [...this.open]) {
      if (stillHolds(key)) continue;
      state.stale = true;
      this.open.delete(key);
    }
  }

  /** Keys of the reminders whose question still holds. */
  get showing(): string[] {
    return [...this.open.keys()];
  }
}
