// The Beads view at the side bar's default width (about 300 px), as a new user first sees it, in
// a dark, a light and a high-contrast theme, on the scenario workspace served by the stand-in br
// (see sidebar.e2e.mjs for its issues). Every Ready row shows its title (priority, type, parent and
// what it unblocks go to a second line, Claim to hover, focus and the context menu), and a long
// focused title wraps between words only. Screenshots land in test-results/narrow-<theme>-view.png.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBeadsView, treeItem, VIEW_SCREENSHOT_SETTINGS } from './beadsView.mjs';

export const workspace = { dialect: 'br', data: 'scenario' };
export const settings = VIEW_SCREENSHOT_SETTINGS;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A title with a long file name in it, as in "Load widgets.yaml …": it must never break inside a word. */
const LONG_TITLE = 'Parse widget config: nested sections of widgets.yaml, with line numbers in every error message';

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** Rewrites an issue's title in the stand-in's store, as `br update --title` would. */
function retitle(workspacePath, id, title) {
  const file = path.join(workspacePath, '.beads/issues.jsonl');
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  for (const issue of lines) if (issue.id === id) issue.title = title;
  fs.writeFileSync(file, `${lines.map((issue) => JSON.stringify(issue)).join('\n')}\n`);
}

/** Switches the workbench theme with Preferences: Color Theme, as a user would: the first theme named `words` without `avoid`. */
async function useTheme(helpers, words, avoid, bodyClass) {
  const { page } = helpers;
  // Ctrl+K Ctrl+T: the palette's "Color Theme" query also finds the marketplace's theme search.
  await page.keyboard.press('Escape');
  await page.locator('.monaco-workbench .part.editor').click({ position: { x: 300, y: 300 } });
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(words);
  const rows = page.locator('.quick-input-list .monaco-list-row', { hasText: words });
  await rows.first().waitFor({ state: 'visible' });
  const labels = await rows.allInnerTexts();
  const index = labels.findIndex((label) => !avoid || !label.includes(avoid));
  assert(index >= 0, `a theme named ${words}: ${labels}`);
  await rows.nth(index).click();
  const frame = helpers.webviewFrame();
  await helpers.waitFor(async () => {
    const classes = (await frame.locator('body').getAttribute('class'))?.split(/\s+/) ?? [];
    return classes.includes(bodyClass) && (!avoid || !classes.some((name) => name.toLowerCase().includes(avoid.toLowerCase())));
  }, `the view in ${words}`, 30_000);
}

/** What each Ready row shows of its title: its width and whether the whole title fits. */
function readyTitles(frame) {
  return frame.locator('[data-key^="ready:"] > .row .ready-item > .line:first-child .title').evaluateAll((titles) =>
    titles.map((title) => ({
      id: title.closest('[role="treeitem"]').dataset.key,
      text: title.textContent,
      width: Math.round(title.getBoundingClientRect().width),
      needed: title.scrollWidth,
    })),
  );
}

/** The words of an element's text that the layout breaks across two lines. */
function brokenWords(locator) {
  return locator.evaluate((element) => {
    const node = element.firstChild;
    const value = node?.textContent ?? '';
    const broken = [];
    for (const match of value.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
    return broken;
  });
}

/** Every Ready title shows at least 120 px of itself (or all of itself, when shorter). */
async function assertTitlesReadable(frame, theme) {
  const titles = await readyTitles(frame);
  assert(titles.length >= 4, `${theme}: the Ready rows are there: ${JSON.stringify(titles)}`);
  const cramped = titles.filter((title) => title.width < Math.min(title.needed, 120));
  assert(cramped.length === 0, `${theme}: Ready rows whose title has no room: ${JSON.stringify(cramped)}`);
}

/** Saves test-results/<name>-view.png: the activity bar and the Beads view, no toast, hover or focus in the way. */
async function viewShot(helpers, name) {
  const { page } = helpers;
  await helpers.runPalette('Notifications: Clear All Notifications');
  await page.mouse.move(900, 450);
  await helpers.webviewFrame().locator('body').evaluate(() => {
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    window.scrollTo(0, 0);
  });
  await page.waitForTimeout(500);
  const side = await page.locator('.part.sidebar').boundingBox();
  await page.screenshot({ path: path.join(repoRoot, 'test-results', `${name}-view.png`), clip: { x: 0, y: side.y, width: side.x + side.width + 1, height: side.height } });
}

export const tests = {
  async 'at the default width every Ready row shows its title, and Claim shows on hover'(helpers) {
    const { page } = helpers;
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'ready:demo-8').waitFor({ timeout: 60_000 });
    await frame.locator('.progress').waitFor({ state: 'hidden' });
    const side = await page.locator('.part.sidebar').boundingBox();
    assert(side.width >= 250 && side.width <= 360, `the side bar is at its default width: ${side.width}`);
    await assertTitlesReadable(frame, 'dark');
    // Claim takes no room until the row is hovered or focused; it is still one move away.
    const claim = treeItem(frame, 'ready:demo-8').locator(':scope > .row .row-action[aria-label="Claim demo-8"]');
    await page.mouse.move(900, 450);
    assert(!(await claim.isVisible()), 'Claim is hidden while the row is neither hovered nor focused');
    await treeItem(frame, 'ready:demo-8').locator(':scope > .row').hover();
    await claim.waitFor({ state: 'visible', timeout: 5_000 });
    // An epic is finished through its children: it takes no row.
    assert((await frame.locator('[data-key="ready:demo-epic"], [data-key="ready:demo-ops"]').count()) === 0, 'no epic has a Ready row');
    const second = await treeItem(frame, 'ready:demo-2').locator(':scope > .row .ready-item > .line').nth(1).innerText();
    assert(/^P\d/.test(second) && second.includes('unblocks demo-1'), `the second line has the priority and what it unblocks: ${second}`);
  },

  async 'a long focused title wraps between words only'(helpers) {
    const frame = helpers.webviewFrame();
    retitle(helpers.workspace, 'demo-1', LONG_TITLE);
    const title = treeItem(frame, 'focus:issue').locator(':scope > .row .title').first();
    await helpers.waitFor(async () => (await title.textContent()) === LONG_TITLE, 'the new title in the view', 30_000);
    const lines = await title.evaluate((element) => Math.round(element.getBoundingClientRect().height / parseFloat(window.getComputedStyle(element).lineHeight)));
    assert(lines >= 2, `the title wraps at this width (${lines} lines)`);
    const broken = await brokenWords(title);
    assert(broken.length === 0, `words broken across lines: ${JSON.stringify(broken)}`);
  },

  async 'dark, light and high-contrast screenshots at the default width'(helpers) {
    const frame = helpers.webviewFrame();
    for (const [theme, avoid, bodyClass, name] of [
      ['Dark Modern', undefined, 'vscode-dark', 'narrow-dark'],
      ['Light Modern', undefined, 'vscode-light', 'narrow-light'],
      ['High Contrast', 'Light', 'vscode-high-contrast', 'narrow-high-contrast'],
    ]) {
      await useTheme(helpers, theme, avoid, bodyClass);
      await assertTitlesReadable(frame, theme);
      assert((await brokenWords(treeItem(frame, 'focus:issue').locator(':scope > .row .title').first())).length === 0, `${theme}: the focused title breaks between words`);
      await viewShot(helpers, name);
    }
  },
};
