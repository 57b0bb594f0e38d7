// The "Checkpoint now?" reminder in the real workbench, on the scenario workspace served by the
// stand-in br (demo-1 in progress): it asks once edits pass the threshold, and goes away by itself
// when the issue is closed from outside VS Code, as an agent in a terminal would.
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
  async 'a "Checkpoint now?" reminder goes away once its issue is closed'(helpers) {
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
    assert(/demo-1 has \d+ edits since its last checkpoint/.test(text), `the reminder names the issue and the work: ${text}`);
    for (const action of ['Checkpoint', 'Copy Recovery Context', 'Snooze']) assert(text.includes(action), `the reminder offers ${action}: ${text}`);
    await helpers.screenshot('reminder-checkpoint-now');
    // Closed from a terminal: the question no longer holds, and the reminder is withdrawn.
    execFileSync(standInBr, ['close', 'demo-1', '--force', '--reason', 'done from a terminal', '--json'], { cwd: helpers.workspace, env: process.env });
    await helpers.waitFor(async () => (await reminder.count()) === 0, 'the reminder withdrawn after the close', 60_000);
    await helpers.runPalette('Notifications: Show Notifications');
    const center = page.locator('.notifications-center');
    await center.waitFor({ timeout: 10_000 });
    assert(!(await center.innerText()).includes('Checkpoint now?'), 'nor left in the notification center');
  },
};
