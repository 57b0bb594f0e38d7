// The "Checkpoint now?" reminder in the real workbench, on the scenario workspace served by the
// stand-in br (demo-1 in progress): it asks once edits pass the threshold, as a plain question with
// buttons (not a progress notification), and once the issue is closed from outside VS Code, as an
// agent in a terminal would, its buttons say it is out of date instead of acting.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const workspace = { dialect: 'br', data: 'scenario' };
export const settings = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'beadsRecovery.checkpoint.editThreshold': 3,
};

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const standInBr = path.join(repoRoot, 'test/fixtures/bin/br');

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

export const tests = {
  async 'a "Checkpoint now?" reminder is a question with buttons, and a stale one says so instead of acting'(helpers) {
    const { page } = helpers;
    await page.locator('.statusbar-item', { hasText: 'demo-1' }).first().waitFor({ timeout: 60_000 });
    fs.mkdirSync(path.join(helpers.workspace, 'src'), { recursive: true });
    const reminder = page.locator('.notifications-toasts .notification-toast', { hasText: 'Checkpoint now?' });
    // Edits until the threshold is passed; a file written from outside may take a moment to count.
    for (let edit = 0; edit < 12 && (await reminder.count()) === 0; edit++) {
      fs.writeFileSync(path.join(helpers.workspace, 'src', `file${edit}.ts`), `export const value${edit} = ${edit};\n`);
      await page.waitForTimeout(700);
    }
    await reminder.first().waitFor({ timeout: 60_000 });
    const text = await reminder.first().innerText();
    // What made it due, which stays true while it shows; the live count is the status bar's.
    assert(/demo-1 has 3 edits or more since its last checkpoint/.test(text), `the reminder names the issue and the threshold: ${text}`);
    for (const action of ['Checkpoint', 'Copy Recovery Context', 'Snooze 30m']) {
      assert((await reminder.first().getByRole('button', { name: action, exact: true }).count()) === 1, `the reminder has a ${action} button: ${text}`);
    }
    // Not a progress notification: no Cancel, no progress bar running; VS Code's own close button.
    assert((await reminder.first().getByRole('button', { name: 'Cancel' }).count()) === 0, 'no lone Cancel');
    assert((await reminder.first().locator('.monaco-progress-container:not(.done) .progress-bit:visible').count()) === 0, 'no progress bar');
    assert((await reminder.first().locator('.codicon-loading, .codicon-sync.codicon-modifier-spin').count()) === 0, 'no spinner');
    await helpers.screenshot('reminder-checkpoint-now');
    // Closed from a terminal: the question no longer holds; the reminder's Checkpoint says so and writes nothing.
    execFileSync(standInBr, ['close', 'demo-1', '--force', '--reason', 'done from a terminal', '--json'], { cwd: helpers.workspace, env: process.env });
    await page.locator('.statusbar-item', { hasText: 'nothing in progress' }).first().waitFor({ timeout: 60_000 });
    // The focus leaving demo-1 may checkpoint its edits (an automatic checkpoint): once that has settled, the click must add nothing.
    const comments = () => helpers.standInCalls().filter((call) => call.args?.[0] === 'comments' && call.args?.[1] === 'add').length;
    let before = -1;
    await helpers.waitFor(async () => {
      const now = comments();
      const settled = now === before;
      before = now;
      await page.waitForTimeout(1500);
      return settled;
    }, 'the writes after the close to settle', 30_000);
    if ((await reminder.count()) === 0) await helpers.runPalette('Notifications: Show Notifications');
    const stale = page.locator('.notification-list-item', { hasText: 'Checkpoint now?' }).first();
    await stale.getByRole('button', { name: 'Checkpoint', exact: true }).click();
    await page.locator('.notification-list-item', { hasText: 'that reminder is out of date' }).first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(1500);
    assert(comments() === before, 'no checkpoint written for a closed issue');
  },
};
