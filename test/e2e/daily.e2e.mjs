// Daily use in the real workbench, on the scenario workspace served by the stand-in br (see
// sidebar.e2e.mjs for its issues): a calm first open, a keyboard-only claim, a focus click that
// writes nothing, and one "next" after a close across the notification, the view and the prompt.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBeadsView, treeItem } from './beadsView.mjs';

// Fresh dates: the scenario's work happened in the day before the run, as the README's screenshot shows it.
export const workspace = { dialect: 'br', data: 'scenario', now: Date.now() };
export const settings = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const standInBr = path.join(repoRoot, 'test/fixtures/bin/br');

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function issue(workspacePath, id) {
  const lines = fs.readFileSync(path.join(workspacePath, '.beads/issues.jsonl'), 'utf8').split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line)).find((candidate) => candidate.id === id);
}

function toasts(page) {
  return page.locator('.notifications-toasts .notification-toast').allInnerTexts();
}

/** Hovers the status bar item showing `text` and returns its tooltip's text once it has one. */
async function statusTooltip(page, text) {
  const item = page.locator('.statusbar-item', { hasText: text }).first();
  const hover = page.locator('.monaco-hover, .workbench-hover').filter({ visible: true }).first();
  await page.mouse.move(900, 450);
  await item.hover();
  await hover.waitFor({ timeout: 10_000 });
  const said = await hover.innerText();
  await page.mouse.move(900, 450);
  return said;
}

function commentWrites(helpers) {
  return helpers.standInCalls().filter((call) => call.args?.[0] === 'comments' && call.args?.[1] === 'add');
}

export const tests = {
  async 'first open says what the extension does and shows no stall warning'(helpers) {
    const { page } = helpers;
    // demo-1 was last updated the day before: counted from then, it would be "stalled" at once.
    await page.locator('.statusbar-item', { hasText: 'demo-1' }).first().waitFor({ timeout: 60_000 });
    const welcome = page.locator('.notifications-toasts .notification-toast', { hasText: 'Beads Recovery is keeping' });
    await welcome.waitFor({ timeout: 30_000 });
    await page.waitForTimeout(3000);
    const shown = await toasts(page);
    assert(!shown.some((text) => /stalled|no activity/i.test(text)), `no stall warning on first open: ${JSON.stringify(shown)}`);
    assert(!shown.some((text) => /warning/i.test(text) && /beads/i.test(text) && !text.includes('Beads Recovery is keeping')), `no other Beads warning: ${JSON.stringify(shown)}`);
    assert((await welcome.getByRole('button', { name: 'Open the Beads View' }).count()) === 1, 'the welcome offers the view');
    // One model from the first paint: before the view was ever opened, the first hover already
    // knows demo-1's checkpoints (its comments), as the view will.
    assert(!(await page.locator('.activitybar .action-item.checked [aria-label^="Beads"]').count()), 'the Beads view has not been opened');
    let tooltip = '';
    for (let tries = 0; tries < 20 && !/last checkpoint|no checkpoint yet/.test(tooltip); tries++) {
      tooltip = await statusTooltip(page, 'demo-1');
      if (!/last checkpoint|no checkpoint yet/.test(tooltip)) await page.waitForTimeout(1000);
    }
    assert(/since the last checkpoint \(last checkpoint \d+\w* ago\)/.test(tooltip) && !tooltip.includes('no checkpoint yet'), `the first hover names demo-1's last checkpoint: ${tooltip}`);
    await welcome.getByRole('button', { name: 'Get Started' }).click();
    await page.locator('.gettingStartedContainer').first().waitFor({ timeout: 30_000 });
    await helpers.screenshot('daily-first-open');
    // Beside the Chat panel the editor is narrow and VS Code hides the step's picture: the step links to it.
    await page.setViewportSize({ width: 1100, height: 900 });
    try {
      await page.locator('.gettingStartedContainer.width-semi-constrained').waitFor({ timeout: 10_000 });
      const link = page.locator('.gettingStartedContainer .step-description-container a', { hasText: 'Show it' }).filter({ visible: true }).first();
      await link.click();
      await page.locator('.tabs-container .tab', { hasText: 'overview.png' }).first().waitFor({ timeout: 20_000 });
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
      // The image preview is a webview of its own: closed, so that the Beads view's is the only one shown.
      await helpers.runPalette('View: Close All Editors');
    }
  },

  async 'Install Agent Hooks with no agent ticked says so'(helpers) {
    const { page } = helpers;
    await helpers.runPalette('Beads: Install Agent Hooks');
    const ok = page.locator('.quick-input-widget .quick-input-action a, .quick-input-widget .monaco-button', { hasText: 'OK' }).first();
    await ok.waitFor({ state: 'visible', timeout: 20_000 });
    // Whatever was ticked as detected, untick it.
    const ticked = page.locator('.quick-input-list .monaco-list-row[aria-checked="true"]');
    for (let tries = 0; tries < 10 && (await ticked.count()) > 0; tries++) await ticked.first().click();
    await ok.click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'no agent was ticked' }).waitFor({ timeout: 20_000 });
  },

  async 'a keyboard-only claim: Space on a ready issue asks, Enter confirms'(helpers) {
    const { page } = helpers;
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'ready:demo-8').waitFor({ timeout: 60_000 });
    await frame.locator('.progress').waitFor({ state: 'hidden' });
    await frame.locator('[role="treeitem"][tabindex="0"]').focus();
    await page.keyboard.press('Home');
    const focusedKey = () => frame.locator('body').evaluate(() => document.activeElement?.getAttribute('data-key'));
    for (let steps = 0; steps < 100 && (await focusedKey()) !== 'ready:demo-8'; steps++) await page.keyboard.press('ArrowDown');
    assert((await focusedKey()) === 'ready:demo-8', 'ArrowDown reaches demo-8');
    await page.keyboard.press(' ');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert((await dialog.innerText()).includes('Claim demo-8'), 'the confirmation names the issue');
    assert(issue(helpers.workspace, 'demo-8').status === 'open', 'nothing is claimed before the answer');
    await page.keyboard.press('Enter');
    await helpers.waitFor(() => issue(helpers.workspace, 'demo-8').status === 'in_progress', 'demo-8 claimed', 30_000);
    await helpers.waitFor(async () => (await frame.locator('[data-key="focus:issue"][aria-label^="demo-8 "]').count()) === 1, 'demo-8 focused in the view', 30_000);
    // br records "unknown" when a claim had no actor (no $USER here): that names nobody, so the view says no assignee.
    const focusedText = await treeItem(frame, 'focus:issue').locator(':scope > .row').innerText();
    assert(!focusedText.includes('assigned to unknown'), `no "assigned to unknown": ${focusedText}`);
    // A claim from the view is this window's: its own session row names the issue.
    const ownRow = frame.locator('[data-key^="session:"]', { hasText: 'this window' });
    await helpers.waitFor(async () => (await ownRow.count()) === 1 && (await ownRow.getAttribute('aria-label')).startsWith('demo-8 '), "this window's session row names demo-8", 30_000);
  },

  async 'a focus click writes nothing, even after the extension-owned agent settings changed'(helpers) {
    const frame = helpers.webviewFrame();
    await treeItem(frame, 'others:demo-1').waitFor({ timeout: 30_000 });
    // What installing agent hooks writes: agent configuration, never work on an issue.
    fs.mkdirSync(path.join(helpers.workspace, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(helpers.workspace, '.claude/settings.local.json'), '{ "hooks": {} }\n');
    await helpers.page.waitForTimeout(2500);
    const before = commentWrites(helpers).length;
    const commentsBefore = (issue(helpers.workspace, 'demo-8').comments ?? []).length;
    await treeItem(frame, 'others:demo-1').locator(':scope > .row').click();
    await helpers.waitFor(async () => (await frame.locator('[data-key="focus:issue"][aria-label^="demo-1 "]').count()) === 1, 'demo-1 focused', 30_000);
    await helpers.page.waitForTimeout(3000);
    assert(commentWrites(helpers).length === before, `no comment written by the focus click: ${JSON.stringify(commentWrites(helpers).slice(before))}`);
    assert((issue(helpers.workspace, 'demo-8').comments ?? []).length === commentsBefore, 'demo-8 has no new comment');
  },

  async 'Close says what blocks the issue before it asks for a reason'(helpers) {
    const { page } = helpers;
    // demo-1 has open blockers (demo-2, demo-3) and an open child (demo-1.2).
    await page.keyboard.press('Escape');
    await helpers.runPalette('Beads: Close Issue');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    const said = await dialog.innerText();
    assert(/demo-1/.test(said) && /block|child/i.test(said), `the dialog says what stands in the way: ${said}`);
    assert(!(await page.locator('.quick-input-widget input[aria-label="Close demo-1"]').isVisible()), 'no reason is asked for yet');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForTimeout(1000);
    assert(!(await page.locator('.quick-input-widget input[aria-label="Close demo-1"]').isVisible()), 'Cancel stops there');
  },

  async 'after a close the notification, the view and the continue prompt name the same next issue'(helpers) {
    const { page } = helpers;
    const frame = helpers.webviewFrame();
    // demo-1 can close once its blockers and its open child are done; demo-8 (claimed above) is done
    // too, so that nothing is in progress after the close and the recovery context offers what is next.
    for (const id of ['demo-2', 'demo-3', 'demo-1.2', 'demo-8']) {
      execFileSync(standInBr, ['close', id, '--force', '--reason', 'done in the e2e test', '--json'], { cwd: helpers.workspace, env: process.env });
    }
    await helpers.waitFor(async () => (await frame.locator('[data-key^="focus:blockers:"]').count()) === 0, 'the blockers gone from the view', 30_000);
    await helpers.runPalette('Beads: Close Issue');
    const reason = page.locator('.quick-input-widget input[aria-label="Close demo-1"]');
    await reason.waitFor({ state: 'visible', timeout: 20_000 });
    await reason.fill('Verified in the e2e test');
    await page.keyboard.press('Enter');
    const closedToast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Beads: closed demo-1' });
    await closedToast.waitFor({ timeout: 30_000 });
    const toastText = await closedToast.innerText();
    const named = /Next: (\S+)/.exec(toastText)?.[1];
    assert(named === 'demo-5', `the notification offers what the close unblocked: ${toastText}`);
    const offer = treeItem(frame, 'closed:next');
    await offer.waitFor({ timeout: 30_000 });
    assert((await offer.getAttribute('aria-label')).startsWith(`Next: ${named} `), `the view offers ${named}: ${await offer.getAttribute('aria-label')}`);
    assert((await treeItem(frame, `ready:${named}`).getAttribute('aria-label')).includes('suggested next'), 'the ready queue marks the same issue');
    await helpers.writeClipboard('');
    await closedToast.getByRole('button', { name: 'Copy Continue Prompt' }).click();
    const prompt = await helpers.waitFor(async () => (await helpers.readClipboard()) || undefined, 'the continue prompt on the clipboard');
    assert(prompt.includes(`**Next:** ${named} `), `the continue prompt names ${named}:\n${prompt}`);
    await helpers.screenshot('daily-after-close');
    // The ready queue shows it first, and the recovery context the agent gets names it too.
    const firstReady = await frame.locator('[data-key^="ready:"]').first().getAttribute('data-key');
    assert(firstReady === `ready:${named}`, `the next issue leads the Ready list: ${firstReady}`);
    await helpers.writeClipboard('');
    await helpers.runPalette('Beads: Copy Recovery Context');
    const context = await helpers.waitFor(async () => (await helpers.readClipboard()) || undefined, 'the recovery context on the clipboard', 30_000);
    assert(context.includes(`**Next:** ${named} `), `the recovery context names ${named}:\n${context}`);
    // The offer is where Tab lands in the view, and the keyboard focus stays visible.
    await frame.locator('.toolbar vscode-button').first().focus();
    const active = () => frame.locator('body').evaluate(() => {
      const element = document.activeElement;
      const box = element?.getBoundingClientRect();
      return { key: element?.closest('[role="treeitem"]')?.getAttribute('data-key') ?? null, tag: element?.tagName ?? null, label: element?.getAttribute('aria-label') ?? null, visible: !!box && box.width > 0 && box.height > 0 && element !== document.body };
    });
    const seen = [];
    for (let press = 0; press < 6 && !seen.some((step) => step.key === 'closed:next'); press++) {
      await page.keyboard.press('Tab');
      seen.push(await active());
    }
    assert(seen.some((step) => step.key === 'closed:next' && step.tag === 'LI'), `Tab reaches the after-close offer: ${JSON.stringify(seen)}`);
    await page.keyboard.press('Tab');
    const onButton = await active();
    assert(onButton.visible && onButton.label === `Claim ${named}`, `the next Tab is the offer's visible Claim button: ${JSON.stringify(onButton)}`);
    await frame.locator('body').evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    // The offer stays until dismissed.
    await page.waitForTimeout(2000);
    assert((await offer.count()) === 1, 'the offer is still there');
    // Claimed from a terminal: it is in progress, not "next"; the offer ends and the focus move is said.
    execFileSync(standInBr, ['update', named, '--claim', '--json'], { cwd: helpers.workspace, env: process.env });
    await page.locator('.notifications-toasts .notification-toast', { hasText: `${named}` }).filter({ hasText: 'was claimed outside this window' }).waitFor({ timeout: 30_000 });
    await helpers.waitFor(async () => (await treeItem(frame, 'section:closed').count()) === 0, 'the offer gone once the next issue is claimed', 30_000);
    await helpers.waitFor(async () => (await frame.locator(`[data-key="focus:issue"][aria-label^="${named} "]`).count()) === 1, `${named} focused`, 30_000);
    assert((await treeItem(frame, `ready:${named}`).count()) === 0, `${named} is no longer in Ready`);
  },

  async 'with 120 changed files the view stays usable and Ready stays in sight'(helpers) {
    const { page } = helpers;
    const frame = helpers.webviewFrame();
    await helpers.runPalette('Notifications: Clear All Notifications');
    for (let index = 0; index < 120; index++) {
      const folder = path.join(helpers.workspace, 'src', `gen${index % 4}`);
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, `file${index}.ts`), `export const value${index} = ${index};\n`);
    }
    const uncommitted = treeItem(frame, 'section:uncommitted');
    await helpers.waitFor(async () => Number(/Uncommitted changes, (\d+)/.exec((await uncommitted.getAttribute('aria-label')) ?? '')?.[1] ?? 0) >= 120, '120 uncommitted changes counted', 60_000);
    assert((await uncommitted.getAttribute('aria-expanded')) === 'false', 'the long list starts folded');
    await uncommitted.locator(':scope > .row').click();
    const folders = await frame.locator('[data-key^="uncommitted:folder:"]').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));
    assert(folders.length >= 4 && folders.some((label) => /^src\/gen0, 30 files$/.test(label)), `grouped by folder with counts: ${folders}`);
    await uncommitted.locator(':scope > .row .twistie').click();
    const side = await page.locator('.part.sidebar').boundingBox();
    const ready = await treeItem(frame, 'section:ready').locator(':scope > .row').boundingBox();
    assert(ready && ready.y + ready.height <= side.y + side.height, `the Ready header is in sight (at ${ready?.y}, view ends at ${side.y + side.height})`);
    // The screenshot once the view has caught up with the ledger: 120 files touched, folded by folder.
    const touched = treeItem(frame, 'section:activity');
    await helpers.waitFor(async () => Number(/Files touched, (\d+)/.exec((await touched.getAttribute('aria-label')) ?? '')?.[1] ?? 0) >= 120, '120 files touched in the view', 60_000);
    await page.mouse.move(900, 450);
    await helpers.screenshot('daily-many-files');
  },
};
