// The Beads sidebar in the real workbench, on the scenario workspace served by the stand-in br:
// demo-1 is in progress under demo-epic, with open blockers demo-2 and demo-3 (demo-4 is closed),
// children demo-1.1 (closed) and demo-1.2, and dependents demo-5 (only demo-1 blocks it) and
// demo-6 (demo-7 blocks it too); demo-8, demo-9 (epic demo-epic) and demo-10 (epic demo-ops) are
// ready. Screenshots land in test-results/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBeadsView, treeItem, VIEW_SCREENSHOT_SETTINGS } from './beadsView.mjs';

// Fresh dates: the scenario's work happened in the day before the run (the README's workbench picture comes from here).
export const workspace = { dialect: 'br', data: 'scenario', now: Date.now() };
export const settings = VIEW_SCREENSHOT_SETTINGS;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const standInBr = path.join(repoRoot, 'test/fixtures/bin/br');
const HOSTILE_IMG = '<img src=x onerror=alert(1)>';
const HOSTILE_SCRIPT = '</script><script>document.title="pwned"</script>';

let dialogs = 0;

/**
 * Saves test-results/<name>.png (the workbench) and <name>-view.png (the activity bar and the
 * Beads view only, for the README), with no toast, hover or focus ring in the way.
 */
async function screenshots(helpers, frame, name) {
  const { page } = helpers;
  await helpers.runPalette('Notifications: Clear All Notifications');
  await page.mouse.move(900, 450);
  await frame.locator('body').evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await helpers.screenshot(name);
  const side = await page.locator('.part.sidebar').boundingBox();
  await page.screenshot({ path: path.join(repoRoot, 'test-results', `${name}-view.png`), clip: { x: 0, y: side.y, width: side.x + side.width + 1, height: side.height } });
}

async function issueStatus(workspacePath, id) {
  const lines = fs.readFileSync(path.join(workspacePath, '.beads/issues.jsonl'), 'utf8').split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line)).find((issue) => issue.id === id)?.status;
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

export const tests = {
  async 'the tree, trail and ready list show the scenario'(helpers) {
    const { page } = helpers;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    const frame = await openBeadsView(helpers);
    const focused = treeItem(frame, 'focus:issue');
    await focused.waitFor({ timeout: 60_000 });
    assert((await focused.getAttribute('aria-label')).startsWith('demo-1 Parse widget config'), 'demo-1 is the focused issue');
    // The ancestors wrap the issue: demo-epic is its parent in the tree.
    const epic = treeItem(frame, 'focus:ancestor:demo-epic');
    assert((await epic.locator('[data-key="focus:issue"]').count()) === 1, 'demo-1 sits under demo-epic');
    // The first refresh may not reach the epic's own parent yet ("higher ancestors not loaded"); the next one does.
    await helpers.waitFor(async () => (await epic.getAttribute('aria-level')) === '2', 'the epic as the first level under the section', 30_000);

    const children = await frame.locator('[data-key^="focus:children:"]').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));
    assert(children.length === 2 && children[0].startsWith('demo-1.1 ') && children[0].includes('closed') && children[1].startsWith('demo-1.2 '), `children: ${children}`);
    const blockers = await frame.locator('[data-key^="focus:blockers:"]').evaluateAll((items) => items.map((item) => item.dataset.key));
    assert(JSON.stringify(blockers) === JSON.stringify(['focus:blockers:demo-2', 'focus:blockers:demo-3']), `open blockers: ${blockers} (demo-4 is closed)`);
    const unblocks = await frame.locator('[data-key^="focus:unblocks:"]').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));
    assert(unblocks.length === 2 && unblocks[0].startsWith('demo-5 ') && unblocks[0].endsWith('would become ready'), `unblocks: ${unblocks}`);
    assert(unblocks[1].startsWith('demo-6 ') && unblocks[1].endsWith('still blocked by others'), `unblocks: ${unblocks}`);

    const trail = await frame.locator('[data-key^="trail:"]:not([data-key$=":text"])').evaluateAll((items) => items.map((item) => [item.dataset.key, item.className, item.getAttribute('aria-label')]));
    assert(trail.length === 3, `three comments in the trail: ${JSON.stringify(trail)}`);
    assert(trail[0][1].includes('trail-checkpoint') && trail[0][2].includes('nested sections parse'), `newest first: ${trail[0]}`);
    assert(trail[1][1].includes('trail-commit') && trail[1][2].includes('abc1234 Parse widget config keys'), `the commit is told apart: ${trail[1]}`);

    // The view names the CLI and its version; its own toolbar holds only what the title bar does not show, in one row.
    await helpers.waitFor(async () => (await frame.locator('.toolbar .cli').innerText()) === 'br 0.2.15', 'the view names br 0.2.15', 30_000);
    const toolbarActions = await frame.locator('.toolbar vscode-button').evaluateAll((buttons) => buttons.map((button) => button.dataset.action));
    assert(JSON.stringify(toolbarActions) === JSON.stringify(['close', 'claim']), `the toolbar repeats no title-bar button: ${toolbarActions}`);
    const rows = await frame.locator('.toolbar vscode-button').evaluateAll((buttons) => new Set(buttons.map((button) => Math.round(button.getBoundingClientRect().top))).size);
    assert(rows === 1, `the toolbar is one row (${rows})`);

    const ready = (id) => treeItem(frame, `ready:${id}`);
    const contextLines = (id) => ready(id).locator(':scope > .row .ready-item > .line').evaluateAll((lines) => lines.map((line) => [...line.children].map((part) => part.textContent).join(' ')));
    for (const [id, parent] of [['demo-8', 'demo-epic Recovery demo epic'], ['demo-9', 'demo-epic Recovery demo epic'], ['demo-10', 'demo-ops Ops polish epic']]) {
      const lines = await contextLines(id);
      assert(lines[1].endsWith(`in ${parent}`), `${id} shows its parent ${parent}: ${lines}`);
    }
    const demo2 = await contextLines('demo-2');
    assert(/^P\d+ · (?:\w+ · )?unblocks demo-1\b/.test(demo2[1] ?? ''), `demo-2 unblocks demo-1: ${demo2}`);
    assert((await ready('demo-5').count()) === 0, 'demo-5 is blocked, not ready');

    // A file written by another process (an agent in a terminal) lands in the ledger and in git status.
    fs.mkdirSync(path.join(helpers.workspace, 'src/widgets'), { recursive: true });
    fs.writeFileSync(path.join(helpers.workspace, 'src/widgets/config.ts'), 'export interface WidgetConfig {\n  name: string;\n}\n');
    await helpers.waitFor(async () => (await treeItem(frame, 'activity:file:src/widgets/config.ts').count()) === 1, 'the file under Files touched', 30_000);
    await helpers.waitFor(async () => (await treeItem(frame, 'uncommitted:src/widgets/config.ts').count()) === 1, 'the file under Uncommitted changes', 30_000);
    assert((await treeItem(frame, 'uncommitted:src/widgets/config.ts').getAttribute('aria-label')).endsWith('untracked'), 'git status says untracked');
    // At the side bar's default width, as a new user sees it.
    await screenshots(helpers, frame, 'sidebar-dark');
  },

  async 'light theme screenshot'(helpers) {
    const { page } = helpers;
    // Switches to workbench.preferredLightColorTheme, Light Modern by default.
    await helpers.runPalette('Preferences: Toggle between Light/Dark Themes');
    await page.locator('.monaco-workbench.vs').waitFor({ timeout: 30_000 });
    const frame = await openBeadsView(helpers);
    await helpers.waitFor(async () => (await frame.locator('body').getAttribute('class'))?.includes('vscode-light'), 'the webview in the light theme');
    await screenshots(helpers, frame, 'sidebar-light');
  },

  async 'hostile titles appear as text and add no element'(helpers) {
    const frame = helpers.webviewFrame();
    const scriptsBefore = await frame.locator('script').count();
    for (const title of [HOSTILE_IMG, HOSTILE_SCRIPT]) {
      execFileSync(standInBr, ['create', title, '-p', '0', '--json'], { cwd: helpers.workspace, env: process.env });
    }
    // The view follows the store by itself (the .beads watcher), no refresh command.
    await helpers.waitFor(async () => (await frame.locator('[data-key^="ready:"] .title', { hasText: HOSTILE_IMG }).count()) === 1, 'the <img> title in the ready list', 30_000);
    await helpers.waitFor(async () => (await frame.locator('[data-key^="ready:"] .title', { hasText: HOSTILE_SCRIPT }).count()) === 1, 'the </script> title in the ready list');
    assert((await frame.locator('img').count()) === 0, 'no <img> element in the webview');
    assert((await frame.locator('script').count()) === scriptsBefore, 'no new <script> element in the webview');
    assert((await frame.locator('body').evaluate(() => document.title)) !== 'pwned', 'no script ran');
    assert(dialogs === 0, 'no alert dialog');
  },

  async 'Claim from the view changes the store and the view follows'(helpers) {
    const frame = helpers.webviewFrame();
    assert((await issueStatus(helpers.workspace, 'demo-8')) === 'open', 'demo-8 starts open');
    // Claim shows when the row is hovered: the title has the row until then.
    await treeItem(frame, 'ready:demo-8').locator(':scope > .row').hover();
    await treeItem(frame, 'ready:demo-8').locator(':scope > .row button[aria-label="Claim demo-8"]').click();
    await helpers.waitFor(async () => (await issueStatus(helpers.workspace, 'demo-8')) === 'in_progress', 'demo-8 in progress in .beads/issues.jsonl', 30_000);
    // The claimed issue is the most recently updated one in progress: it takes the focus.
    await helpers.waitFor(
      async () => (await treeItem(frame, 'ready:demo-8').count()) === 0 && (await frame.locator('[data-key="focus:issue"][aria-label^="demo-8 "]').count()) === 1,
      'demo-8 leaves the ready list and becomes the focused issue',
      30_000,
    );
    assert((await treeItem(frame, 'others:demo-1').count()) === 1, 'demo-1 is still in progress, listed apart');
  },

  async 'keyboard navigation reaches every action'(helpers) {
    const { page } = helpers;
    const frame = helpers.webviewFrame();
    const focusedId = (await treeItem(frame, 'focus:issue').getAttribute('aria-label')).split(' ')[0];
    // Read in one step inside the page: undefined once the focus has left the webview.
    const focusedLabel = () => frame.locator('body').evaluate(() => {
      const element = document.activeElement;
      return element && element !== document.body ? element.getAttribute('aria-label') || element.textContent.trim() : undefined;
    });
    const focusedKey = () => frame.locator('body').evaluate(() => document.activeElement?.getAttribute('data-key'));
    // A re-render while the keyboard walks the toolbar would move the focus under it: start once
    // the refresh that the previous test's claim caused has landed.
    await frame.locator('.progress').waitFor({ state: 'hidden' });
    await page.waitForTimeout(1000);
    await frame.locator('.toolbar vscode-button').first().focus();
    const reached = new Set();
    // Tab from the last stop leaves the webview for the workbench.
    for (let stops = 0; stops < 20; stops++) {
      const label = await focusedLabel();
      if (label === undefined) break;
      reached.add(label);
      await page.keyboard.press('Tab');
    }
    for (const label of [`Close ${focusedId}…`, 'Claim a Ready Issue…']) {
      assert(reached.has(label), `Tab reaches "${label}" (reached: ${[...reached].join(' | ')})`);
    }
    // One tab stop for the tree: ArrowDown visits every row, Tab enters the row's own actions, Escape returns.
    await frame.locator('[role="treeitem"][tabindex="0"]').focus();
    await page.keyboard.press('Home');
    const rowActions = new Set();
    const visited = [];
    for (let steps = 0; steps < 300; steps++) {
      const key = await focusedKey();
      if (key === visited[visited.length - 1]) break;
      visited.push(key);
      const actions = await frame.locator(`[data-key="${key}"] > .row button:not([disabled])`).count();
      for (let i = 0; i < actions; i++) {
        await page.keyboard.press('Tab');
        rowActions.add(await focusedLabel());
      }
      if (actions > 0) await page.keyboard.press('Escape');
      await page.keyboard.press('ArrowDown');
    }
    const visible = await frame.locator('[role="treeitem"]:not([role="group"][hidden] *)').count();
    assert(visited.length === visible, `ArrowDown visits all ${visible} visible rows (visited ${visited.length})`);
    for (const label of [`Checkpoint ${focusedId}`, `Close ${focusedId}`, 'Claim demo-9', 'Claim demo-10']) {
      assert(rowActions.has(label), `the keyboard reaches "${label}" (reached: ${[...rowActions].join(' | ')})`);
    }
    // ArrowLeft collapses a section, ArrowRight opens it again.
    const readySection = treeItem(frame, 'section:ready');
    await readySection.focus();
    await page.keyboard.press('ArrowLeft');
    assert((await readySection.getAttribute('aria-expanded')) === 'false', 'ArrowLeft collapses');
    await page.keyboard.press('ArrowRight');
    assert((await readySection.getAttribute('aria-expanded')) === 'true', 'ArrowRight expands');
    // And the keyboard runs actions: Enter on Claim a Ready Issue… opens its quick pick of ready issues.
    await frame.locator('.toolbar vscode-button[data-action="claim"]').focus();
    await page.keyboard.press('Enter');
    const pick = page.locator('.quick-input-widget');
    await helpers.waitFor(async () => (await pick.isVisible()) && (await pick.innerText()).includes('demo-9'), 'the ready issues in a quick pick');
    await page.keyboard.press('Escape');
  },

  async 'a CLI error mid-refresh keeps the last view and offers Retry'(helpers) {
    const frame = helpers.webviewFrame();
    fs.writeFileSync(helpers.faultFile, 'exit:2 read\n');
    try {
      // A change in .beads/ makes the view refresh by itself; its listing then fails.
      const store = path.join(helpers.workspace, '.beads/issues.jsonl');
      fs.writeFileSync(store, fs.readFileSync(store));
      const banner = frame.locator('.banner-error');
      await banner.waitFor({ timeout: 30_000 });
      assert((await banner.textContent()).includes('stand-in fault'), `the banner names the CLI's error: ${await banner.textContent()}`);
      assert((await treeItem(frame, 'focus:issue').count()) === 1, 'the last good tree stays');
      await helpers.screenshot('sidebar-refresh-error');
    } finally {
      fs.rmSync(helpers.faultFile, { force: true });
    }
    await frame.locator('.banner-error vscode-button').click();
    await frame.locator('.banner-error').waitFor({ state: 'detached', timeout: 30_000 });
  },

  async 'another issue takes the focus; expansion and scroll survive the webview being re-created'(helpers) {
    const { page } = helpers;
    let frame = helpers.webviewFrame();
    // Back to demo-1 (Claim moved the focus to demo-8): a click on it under "Also in progress".
    await treeItem(frame, 'others:demo-1').locator(':scope > .row').click();
    await treeItem(frame, 'focus:issue').and(frame.locator('[aria-label^="demo-1 "]')).waitFor({ timeout: 30_000 });
    assert((await treeItem(frame, 'others:demo-8').count()) === 1, 'demo-8 moved under Also in progress');
    // The new focus's details may take a second refresh: clicks land once the view has settled.
    await frame.locator('.progress').waitFor({ state: 'hidden' });
    await page.waitForTimeout(1000);
    const firstComment = frame.locator('[data-key^="trail:"][aria-expanded]').first();
    const commentKey = await firstComment.getAttribute('data-key');
    await firstComment.locator(':scope > .row .twistie').click();
    assert((await firstComment.getAttribute('aria-expanded')) === 'true', 'the comment opened');
    const children = treeItem(frame, 'focus:children');
    await children.locator(':scope > .row .twistie').click();
    assert((await children.getAttribute('aria-expanded')) === 'false', 'the children collapsed');
    const scrolled = await frame.locator('body').evaluate(() => {
      window.scrollTo(0, 60);
      return window.scrollY;
    });
    assert(scrolled > 0, 'the view scrolls');
    await page.waitForTimeout(400);
    // Showing another container disposes the hidden webview (no retainContextWhenHidden).
    await page.locator('.activitybar .action-item [aria-label^="Explorer"]').first().click();
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 30_000 });
    frame = await openBeadsView(helpers);
    await treeItem(frame, 'focus:issue').waitFor({ state: 'attached', timeout: 30_000 });
    assert((await treeItem(frame, commentKey).getAttribute('aria-expanded')) === 'true', 'the comment is still open');
    assert((await treeItem(frame, 'focus:children').getAttribute('aria-expanded')) === 'false', 'the children are still collapsed');
    const restored = await frame.locator('body').evaluate(() => window.scrollY);
    assert(Math.abs(restored - scrolled) <= 1, `the scroll position came back (${restored}, was ${scrolled})`);
  },

  async 'with nothing in progress the view suggests the next ready issue (never an epic), and what demo-1 unblocked is ready'(helpers) {
    const frame = helpers.webviewFrame();
    // --force: br skips an issue that still has open blockers (demo-1 has two).
    for (const id of ['demo-1', 'demo-8']) {
      execFileSync(standInBr, ['close', id, '--force', '--reason', 'done in the e2e test', '--json'], { cwd: helpers.workspace, env: process.env });
    }
    const next = treeItem(frame, 'focus:next');
    await next.waitFor({ timeout: 30_000 });
    assert((await treeItem(frame, 'focus:none').count()) === 1, 'the view says nothing is in progress');
    const suggested = (await next.getAttribute('aria-label')).slice('Next: '.length).split(' ')[0];
    const inQueue = await treeItem(frame, `ready:${suggested}`).getAttribute('aria-label');
    assert(inQueue.includes('suggested next'), `the ready queue marks the same issue as next (${suggested})`);
    assert(!inQueue.includes(', epic, '), 'an epic is never the suggestion');
    assert((await next.locator(':scope > .row button[aria-label^="Claim "]').count()) === 1, 'the suggestion can be claimed');
    // demo-5 waited only on demo-1: closing demo-1 made it ready, as the tree said it would.
    await treeItem(frame, 'ready:demo-5').waitFor({ state: 'attached' });
    assert((await treeItem(frame, 'ready:demo-6').count()) === 0, 'demo-6 still waits on demo-7');
    await helpers.screenshot('sidebar-nothing-in-progress');
  },
};
