// A write beads refused, in the real workbench on the scenario workspace served by the stand-in br
// (demo-1 in progress): a checkpoint br refuses (exit 4, a validation failure) stays in sight — a
// "Refused by beads" section at the top of the Beads view naming the issue, when and why, and the
// status bar's count — until Retry sends it again through the outbox (it lands once) or Discard,
// after asking, forgets it. Its words are data: markup in them adds no element.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBeadsView, treeItem, VIEW_SCREENSHOT_SETTINGS } from './beadsView.mjs';

// Fresh dates: the scenario's work happened in the day before the run (the README's screenshot comes from here).
export const workspace = { dialect: 'br', data: 'scenario', now: Date.now() };
export const settings = VIEW_SCREENSHOT_SETTINGS;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REFUSED = 'exit:4 write';
const HOSTILE = '<img src=x onerror=alert(1)>';

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** Checkpoint Now from the palette, with `words` in place of its pre-filled summary. */
async function checkpointNow(helpers, words) {
  const { page } = helpers;
  await helpers.runPalette('Beads: Checkpoint Now');
  const input = page.locator('.quick-input-widget input[aria-label^="Checkpoint demo-1"], .quick-input-widget input').first();
  await helpers.waitFor(async () => (await input.isVisible()) && (await page.locator('.quick-input-widget').innerText()).includes('Checkpoint demo-1'), 'the checkpoint input for demo-1', 30_000);
  await input.fill(words);
  await page.keyboard.press('Enter');
}

/** The stand-in's `comments add` calls with `words` that ended with `exit` (0: landed). */
function commentCalls(helpers, words, exit = 0) {
  return helpers.standInCalls().filter((call) => call.args?.[0] === 'comments' && call.args?.[1] === 'add' && call.exit === exit && call.args.some((arg) => String(arg).includes(words)));
}

function toasts(page) {
  return page.locator('.notifications-toasts .notification-toast').allInnerTexts();
}

function landedComments(helpers, words) {
  return commentCalls(helpers, words);
}

/** The section's own buttons (they are always shown), by the start of their accessible name. */
function sectionButton(frame, name) {
  return frame.locator(`[data-key="section:parked"] > .row .row-action[aria-label^="${name}"]`);
}

export const tests = {
  async 'a checkpoint beads refused stays in the view and the status bar until Retry lands it once'(helpers) {
    const { page } = helpers;
    await page.locator('.statusbar-item', { hasText: 'demo-1' }).first().waitFor({ timeout: 60_000 });
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'focus:issue').waitFor({ timeout: 60_000 });
    const words = `Parser done; next the ${HOSTILE} case`;
    fs.writeFileSync(helpers.faultFile, `${REFUSED}\n`);
    try {
      await checkpointNow(helpers, words);
      const section = treeItem(frame, 'section:parked');
      await section.waitFor({ timeout: 30_000 });
      const row = frame.locator('[data-key^="parked:"][role="treeitem"]').first();
      const label = await row.getAttribute('aria-label');
      assert(/^Checkpoint on demo-1 Parse widget config, refused by beads (just now|\d+s ago|1m ago): .*stand-in fault \(exit 4\)/.test(label), `the row names the issue, when and why: ${label}`);
      const shown = await row.locator(':scope > .row').innerText();
      assert(shown.includes('demo-1') && /refused .*stand-in fault \(exit 4\)/.test(shown), `the row shows beads' reason as text: ${shown}`);
      // Its words are one click away, as text: the markup in them is no element.
      await row.locator(':scope > .row').click();
      await helpers.waitFor(async () => (await row.locator('pre.comment-text').innerText().catch(() => '')).includes(HOSTILE), 'the words under the row');
      assert((await frame.locator('img').count()) === 0, 'the words add no element');
      // The status bar says so too, and keeps saying it.
      await page.locator('.statusbar-item', { hasText: '1 refused' }).first().waitFor({ timeout: 30_000 });
      // At the side bar's default width the section's buttons are in sight and nothing scrolls sideways.
      for (const name of ['Send it to beads again', 'Show it', 'Discard it']) assert(await sectionButton(frame, name).isVisible(), `${name} is shown`);
      const overflow = await frame.locator('body').evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert(overflow <= 0, `no horizontal scroll (${overflow} px)`);

      // Show: the words and beads' reason in a read-only editor.
      await sectionButton(frame, 'Show it').click();
      // The editor draws spaces as no-break spaces.
      const editorText = async () => (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
      await helpers.waitFor(async () => (await editorText()).includes('beads said'), 'the refused write in an editor', 30_000);
      const text = await editorText();
      assert(text.includes('Checkpoint on demo-1 (Parse widget config)') && text.includes('stand-in fault (exit 4)') && text.includes(HOSTILE), `Show gives the issue, the reason and the words: ${text}`);
      // For the README: the view, the status bar and Show's editor, with no toast or hover in the way.
      await helpers.runPalette('Notifications: Clear All Notifications');
      await page.mouse.move(900, 600);
      await helpers.screenshot('refused-write');
      assert(landedComments(helpers, 'Parser done').length === 0, 'nothing landed while br refuses');
    } finally {
      fs.rmSync(helpers.faultFile, { force: true });
    }

    // Retry: back to the outbox, whose drainer sends it; it lands once and leaves the view and the status bar.
    const retry = sectionButton(frame, 'Send it to beads again');
    await retry.click();
    await treeItem(frame, 'section:parked').waitFor({ state: 'detached', timeout: 30_000 });
    await helpers.waitFor(() => landedComments(helpers, 'Parser done').length > 0, 'the checkpoint in beads', 30_000);
    await helpers.waitFor(async () => (await page.locator('.statusbar-item', { hasText: 'refused' }).count()) === 0, 'the status bar without a refused write', 30_000);
    await helpers.waitFor(
      async () => (await frame.locator('[data-key^="trail:"][aria-label*="Parser done"]').count()) > 0,
      'the checkpoint in the trail',
      30_000,
    );
    await page.waitForTimeout(1500);
    assert(landedComments(helpers, 'Parser done').length === 1, `landed once: ${JSON.stringify(landedComments(helpers, 'Parser done'))}`);
    // Show's document is live: the write it showed as refused has landed, and it says so.
    const shownNow = (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert(!/refused \S+ ago/.test(shownNow) && shownNow.includes('no longer wait'), `Show's document follows the write: ${shownNow}`);
    await helpers.runPalette('View: Close All Editors');
  },

  async 'Discard asks first, then forgets the refused write and writes nothing'(helpers) {
    const { page } = helpers;
    const frame = await openBeadsView(helpers);
    fs.writeFileSync(helpers.faultFile, `${REFUSED}\n`);
    try {
      await checkpointNow(helpers, 'Words to be discarded');
      await helpers.waitFor(() => commentCalls(helpers, 'Words to be discarded', 4).length > 0, 'br to refuse the checkpoint', 30_000);
      await treeItem(frame, 'section:parked').waitFor({ timeout: 30_000 });
    } finally {
      fs.rmSync(helpers.faultFile, { force: true });
    }
    const dialog = page.locator('.monaco-dialog-box');
    // Cancel first: nothing changes.
    await sectionButton(frame, 'Discard it').click();
    await dialog.waitFor({ timeout: 20_000 });
    assert((await dialog.innerText()).includes('Discard the comment on demo-1?'), `the question names the write: ${await dialog.innerText()}`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(1000);
    assert((await treeItem(frame, 'section:parked').count()) === 1, 'Cancel keeps the write');
    await sectionButton(frame, 'Discard it').click();
    await dialog.waitFor({ timeout: 20_000 });
    await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
    await treeItem(frame, 'section:parked').waitFor({ state: 'detached', timeout: 30_000 });
    await helpers.waitFor(async () => (await page.locator('.statusbar-item', { hasText: 'refused' }).count()) === 0, 'the status bar without a refused write', 30_000);
    await page.waitForTimeout(1500);
    assert(landedComments(helpers, 'Words to be discarded').length === 0, 'a discarded write is never sent');
  },

  async 'a write the command line parked shows in the view at once, and Retry from its row lands it'(helpers) {
    const { page } = helpers;
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'focus:issue').waitFor({ timeout: 60_000 });
    // As an agent's hook or a terminal would: the built command line, with br refusing its write.
    fs.writeFileSync(helpers.faultFile, `${REFUSED}\n`);
    try {
      const cli = path.join(repoRoot, 'dist/cli.js');
      const env = { ...process.env, BEADS_RECOVERY_CLI: 'br', BEADS_RECOVERY_CLI_PATH: path.join(repoRoot, 'test/fixtures/bin/br'), BEADS_STANDIN_FAULT_FILE: helpers.faultFile, BEADS_STANDIN_LOG: helpers.callLog };
      try {
        execFileSync(process.execPath, [cli, 'checkpoint', '--cwd', helpers.workspace, '--issue', 'demo-1', '--message', 'Words from a terminal'], { env, encoding: 'utf8', stdio: 'pipe' });
      } catch {
        // A refused checkpoint exits non-zero; what counts is that it was parked, not lost.
      }
      assert(commentCalls(helpers, 'Words from a terminal', 4).length > 0, 'br refused the command line\'s checkpoint');
      const row = frame.locator('[data-key^="parked:"][role="treeitem"]').first();
      await row.waitFor({ timeout: 30_000 });
      const label = await row.getAttribute('aria-label');
      assert(label.startsWith('Checkpoint on demo-1') && label.includes('stand-in fault (exit 4)'), `the row names it: ${label}`);
      await page.locator('.statusbar-item', { hasText: '1 refused' }).first().waitFor({ timeout: 30_000 });
    } finally {
      fs.rmSync(helpers.faultFile, { force: true });
    }
    // The row's own Retry, shown on hover.
    const row = frame.locator('[data-key^="parked:"][role="treeitem"]').first();
    await row.locator(':scope > .row').hover();
    await row.locator(':scope > .row .row-action[aria-label^="Send the Checkpoint on demo-1 again"]').click();
    await treeItem(frame, 'section:parked').waitFor({ state: 'detached', timeout: 30_000 });
    await helpers.waitFor(() => landedComments(helpers, 'Words from a terminal').length > 0, 'the checkpoint in beads', 30_000);
    await page.waitForTimeout(1500);
    assert(landedComments(helpers, 'Words from a terminal').length === 1, 'landed once');
  },

  async 'a queued write beads refuses on Retry Pending Writes raises one notification, in words'(helpers) {
    const { page } = helpers;
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'focus:issue').waitFor({ timeout: 60_000 });
    // Queued first (beads is locked), then refused when a person retries it.
    fs.writeFileSync(helpers.faultFile, 'locked write\n');
    try {
      await checkpointNow(helpers, 'Words queued then refused');
      await page.locator('.statusbar-item', { hasText: 'pending' }).first().waitFor({ timeout: 30_000 });
      await page.locator('.notifications-toasts .notification-toast', { hasText: 'queued' }).first().waitFor({ timeout: 30_000 });
      await helpers.runPalette('Notifications: Clear All Notifications');
      fs.writeFileSync(helpers.faultFile, `${REFUSED}\n`);
      await helpers.runPalette('Beads: Retry Pending Writes');
      await treeItem(frame, 'section:parked').waitFor({ timeout: 30_000 });
      await page.locator('.notifications-toasts .notification-toast', { hasText: 'refused' }).first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(3000);
      const shown = await toasts(page);
      assert(shown.length === 1, `one notification for one refusal: ${JSON.stringify(shown)}`);
      assert(/Beads refused the checkpoint on demo-1;/.test(shown[0]), `the write in words: ${shown[0]}`);
      assert(!/checkpoint:demo-1:|\(s\)/.test(shown[0]), `no outbox key and no "(s)": ${shown[0]}`);
    } finally {
      fs.rmSync(helpers.faultFile, { force: true });
    }
    await sectionButton(frame, 'Discard it').click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
    await treeItem(frame, 'section:parked').waitFor({ state: 'detached', timeout: 30_000 });
  },
};
