// No wait without a sign, with a beads CLI that takes three seconds a call (the stand-in br's
// `slow` fault), on the scenario workspace (see sidebar.e2e.mjs for its issues): Checkpoint Now
// shows its input box before beads has answered and says what it still reads, the status bar
// shows the typed checkpoint as pending until it lands, Space on a Ready row asks at once, and a
// second press while the claim runs is ignored and said so.
import fs from 'node:fs';
import path from 'node:path';
import { openBeadsView, treeItem } from './beadsView.mjs';

export const workspace = { dialect: 'br', data: 'scenario' };
export const settings = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

const SLOW = 'slow:3000';

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function issue(workspacePath, id) {
  const lines = fs.readFileSync(path.join(workspacePath, '.beads/issues.jsonl'), 'utf8').split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line)).find((candidate) => candidate.id === id);
}

/** The stand-in calls that finished after `since` (ms) with `first` as their first argument. */
function finished(helpers, first, since) {
  return helpers.standInCalls().filter((call) => call.args?.[0] === first && Date.parse(call.endedAt ?? call.startedAt) >= since);
}

function statusItem(page, text) {
  return page.locator('.statusbar-item', { hasText: text }).first();
}

export const tests = {
  async 'Checkpoint Now shows its input box before beads answers, then the write as pending until it lands'(helpers) {
    const { page } = helpers;
    await statusItem(page, 'demo-1').waitFor({ timeout: 60_000 });
    fs.writeFileSync(helpers.faultFile, `${SLOW}\n`);
    const pressed = Date.now();
    await helpers.runPalette('Beads: Checkpoint Now');
    const box = page.locator('.quick-input-widget').filter({ visible: true });
    await box.locator('.quick-input-title', { hasText: 'Checkpoint demo-1' }).waitFor({ timeout: 20_000 });
    const firstPrompt = await box.locator('.quick-input-message').innerText();
    // The box is up while beads is still being read: no `show` had answered since the press.
    assert(finished(helpers, 'show', pressed).length === 0, `the box came only after beads answered: ${JSON.stringify(finished(helpers, 'show', pressed))}`);
    assert(/^Reading /.test(firstPrompt), `the prompt says what it still reads: ${firstPrompt}`);
    await helpers.waitFor(async () => !(await box.locator('.quick-input-message').innerText()).startsWith('Reading'), 'the pre-fill read from beads', 30_000);
    const input = box.locator('input');
    await input.fill('e2e: checkpoint typed while beads is slow');
    await page.keyboard.press('Enter');
    // The status bar says a write is on its way while the comment is not in beads yet.
    const pending = statusItem(page, 'pending');
    await pending.waitFor({ timeout: 10_000 });
    const shown = await pending.innerText();
    const landedAlready = (issue(helpers.workspace, 'demo-1').comments ?? []).some((comment) => comment.text.includes('checkpoint typed while beads is slow'));
    assert(!landedAlready, `the status bar showed "pending" only after the write landed: ${shown}`);
    assert(/demo-1/.test(shown) && /1 write pending/.test(shown), `the status bar names the pending write: ${shown}`);
    await helpers.waitFor(() => (issue(helpers.workspace, 'demo-1').comments ?? []).some((comment) => comment.text.includes('checkpoint typed while beads is slow')), 'the checkpoint in beads', 60_000);
    await helpers.waitFor(async () => (await statusItem(page, 'pending').count()) === 0, 'no pending write once it landed', 30_000);
  },

  async 'Space on a Ready row asks at once, and a second press while the claim runs is ignored and said so'(helpers) {
    const { page } = helpers;
    fs.rmSync(helpers.faultFile, { force: true });
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'ready:demo-9').waitFor({ timeout: 60_000 });
    await frame.locator('.progress').waitFor({ state: 'hidden', timeout: 60_000 });
    fs.writeFileSync(helpers.faultFile, `${SLOW}\n`);
    const row = treeItem(frame, 'ready:demo-9');
    await row.focus();
    const pressed = Date.now();
    await page.keyboard.press(' ');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert((await dialog.innerText()).includes('Claim demo-9 Log config load time'), `the question names the issue and its title: ${await dialog.innerText()}`);
    assert(finished(helpers, 'show', pressed).length === 0, 'the question came before beads answered');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    // Pressed again while the claim is read and written: nothing is asked, the status bar says why.
    await row.focus();
    await page.keyboard.press(' ');
    await page.locator('.statusbar-item', { hasText: 'still under way' }).first().waitFor({ timeout: 10_000 });
    assert(!(await dialog.isVisible()), 'no second question');
    // The stand-in logs a call when it ends, after it has written the issue: wait for both.
    const claims = () => helpers.standInCalls().filter((call) => call.args?.[0] === 'update' && call.args.includes('demo-9') && call.args.includes('--claim'));
    await helpers.waitFor(() => issue(helpers.workspace, 'demo-9').status === 'in_progress' && claims().length > 0, 'demo-9 claimed', 60_000);
    assert(claims().length === 1, `one claim written: ${JSON.stringify(claims())}`);
    fs.rmSync(helpers.faultFile, { force: true });
  },
};
