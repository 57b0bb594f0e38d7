// The Beads view at the side bar's default width (about 300 px), as a new user first sees it, and
// at 500 px, in a dark, a light and a high-contrast theme, on the scenario workspace served by the
// stand-in br (see sidebar.e2e.mjs for its issues) with fresh dates and three agent sessions. No
// title is cut anywhere in the view (titles wrap between words; priority, parent and what an issue
// unblocks go to a dimmer second line, Claim to hover, focus and the context menu); a session row
// leads with its issue, then its agent, short id and live state; the toolbar's version, the section
// notes are whole; the focused row's buttons keep clear of its title, and Tab never leaves the
// focus where nothing shows it. Screenshots land in test-results/narrow-<theme>-<width>-view.png;
// the 300 px ones are the README's (docs/screenshots/narrow-<theme>.png).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBeadsView, treeItem, VIEW_SCREENSHOT_SETTINGS } from './beadsView.mjs';

// Fresh dates: the scenario's times move into the day before the run, as a person's own project reads.
export const workspace = { dialect: 'br', data: 'scenario', now: Date.now() };
export const settings = VIEW_SCREENSHOT_SETTINGS;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A title with a long file name in it, as in "Load widgets.yaml …": it must never break inside a word. */
const LONG_TITLE = 'Parse widget config: nested sections of widgets.yaml, with line numbers in every error message';

const WAITING_SESSION = 'c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Four agent sessions on the folder, as the hooks record them (.git/beads-recovery/sessions.json):
 * two Claude Code sessions whose ids share their first eight characters, one working and one idle,
 * a third whose transcript (in the run's home, where Claude Code keeps it) ends with its answer
 * (`stop_reason: end_turn`: it waits for input), and a Gemini CLI session whose end hook ran.
 */
function writeSessions(workspacePath) {
  const now = Date.now();
  const minutes = (count) => now - count * 60_000;
  const session = (agent, sessionId, lastEventAt, extra = {}) => ({
    agent, sessionId, claimed: 'demo-1', claimedAt: minutes(90), named: [], files: {}, commits: [], compactions: 0, startedAt: minutes(95), lastEventAt, ...extra,
  });
  const sessions = [
    session('claude', '5f0c2a9e-41d7-4c1b-9a3e-0d8f1c2b3a4d', minutes(1), { compactions: 1 }),
    session('claude', '5f0c2a9e-77b2-4e0a-8c1d-9e8f7a6b5c4d', minutes(25)),
    session('claude', WAITING_SESSION, minutes(3)),
    session('gemini', 'b81d0c3e-5a6f-4b7c-8d9e-0f1a2b3c4d5e', minutes(40), { endedAt: minutes(40) }),
  ];
  // The run's home (scripts/vscode/runtime.mjs): code-server's CLAUDE_CONFIG_DIR is its .claude.
  const projects = path.join(path.dirname(workspacePath), 'home', '.claude', 'projects', path.resolve(workspacePath).replace(/[^A-Za-z0-9]/g, '-'));
  const transcript = path.join(projects, `${WAITING_SESSION}.jsonl`);
  const line = (record) => `${JSON.stringify({ sessionId: WAITING_SESSION, cwd: workspacePath, ...record })}\n`;
  fs.mkdirSync(projects, { recursive: true });
  fs.writeFileSync(
    transcript,
    line({ type: 'user', timestamp: new Date(minutes(5)).toISOString(), message: { role: 'user', content: 'Parse the nested sections too' } }) +
      line({ type: 'assistant', timestamp: new Date(minutes(3)).toISOString(), message: { role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Nested sections parse now. Should empty sections be an error?' }] } }),
  );
  fs.utimesSync(transcript, minutes(3) / 1000, minutes(3) / 1000);
  const file = path.join(workspacePath, '.git', 'beads-recovery', 'sessions.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ version: 1, sessions: Object.fromEntries(sessions.map((entry) => [`${entry.agent}:${entry.sessionId}`, entry])) }));
}

/** Every text the view shows that its width could cut: each title, the toolbar's version, section notes, the banner. What is cut, with its width. */
function cutTexts(frame) {
  return frame.locator('body').evaluate(() => {
    const right = document.documentElement.clientWidth;
    const cut = [];
    for (const element of document.querySelectorAll('.title, .toolbar .cli, .section > .row .dim, .banner-text, .session-row .note')) {
      if (element.getClientRects().length === 0) continue;
      const box = element.getBoundingClientRect();
      if (element.scrollWidth > element.clientWidth + 1 || box.right > right + 1) {
        cut.push({ text: element.textContent, width: Math.round(box.width), needed: element.scrollWidth, right: Math.round(box.right), room: right });
      }
    }
    return cut;
  });
}

/** Sets the side bar's width by dragging its edge, as a person does; returns the width it got. */
async function sideBarWidth(helpers, width) {
  const { page } = helpers;
  const side = await page.locator('.part.sidebar').boundingBox();
  // The sash on the side bar's right edge (the one whose middle is nearest to that edge).
  const sashes = await page.locator('.monaco-sash.vertical').evaluateAll((elements) => elements.map((element) => {
    const box = element.getBoundingClientRect();
    return { x: box.x + box.width / 2, top: box.top, bottom: box.bottom };
  }));
  const edge = side.x + side.width;
  const sash = sashes.filter((candidate) => candidate.top < side.y + side.height / 2 && candidate.bottom > side.y + side.height / 2).sort((a, b) => Math.abs(a.x - edge) - Math.abs(b.x - edge))[0];
  assert(sash && Math.abs(sash.x - edge) <= 6, `the side bar's sash: ${JSON.stringify(sashes)}`);
  const y = side.y + side.height / 2;
  await page.mouse.move(sash.x, y);
  await page.mouse.down();
  await page.mouse.move(sash.x + (width - side.width), y, { steps: 8 });
  await page.mouse.up();
  await page.waitForTimeout(300);
  return (await page.locator('.part.sidebar').boundingBox()).width;
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

/** Every Ready row is there and no text of the view is cut. */
async function assertTitlesReadable(frame, theme) {
  const titles = await readyTitles(frame);
  assert(titles.length >= 4, `${theme}: the Ready rows are there: ${JSON.stringify(titles)}`);
  const cut = await cutTexts(frame);
  assert(cut.length === 0, `${theme}: texts the view cuts: ${JSON.stringify(cut)}`);
}

/** Saves test-results/<name>-view.png: the activity bar and the Beads view (from its top, or scrolled to the row keyed `fromKey`), no toast, hover or focus in the way. */
async function viewShot(helpers, name, fromKey) {
  const { page } = helpers;
  await helpers.runPalette('Notifications: Clear All Notifications');
  await page.mouse.move(900, 450);
  await helpers.webviewFrame().locator('body').evaluate((element, key) => {
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    const row = key ? document.querySelector(`[data-key="${key}"]`) : null;
    window.scrollTo(0, row ? row.getBoundingClientRect().top + window.scrollY - 4 : 0);
  }, fromKey);
  await page.waitForTimeout(500);
  const side = await page.locator('.part.sidebar').boundingBox();
  await page.screenshot({ path: path.join(repoRoot, 'test-results', `${name}-view.png`), clip: { x: 0, y: side.y, width: side.x + side.width + 1, height: side.height } });
}

export const tests = {
  async 'at the default width no title is cut, and Claim shows on hover'(helpers) {
    const { page } = helpers;
    writeSessions(helpers.workspace);
    const frame = await openBeadsView(helpers);
    await treeItem(frame, 'ready:demo-8').waitFor({ timeout: 60_000 });
    await helpers.runPalette('Beads: Refresh');
    await frame.locator('[data-key^="session:"]').nth(3).waitFor({ timeout: 30_000 });
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
    // Types are icons with their word for screen readers: demo-10 is a chore, demo-epic an epic.
    assert((await treeItem(frame, 'ready:demo-10').locator('.type-icon[role="img"][aria-label="chore"]').count()) === 1, 'demo-10 carries the chore icon');
    // The dates are fresh: nothing reads weeks old.
    const ages = await frame.locator('.age, .note').allInnerTexts();
    assert(!ages.some((age) => /\d+w ago/.test(age)), `no age in weeks: ${JSON.stringify(ages)}`);
  },

  async 'a session row leads with its issue; its agent, a short id that tells it apart and its live state follow'(helpers) {
    const frame = helpers.webviewFrame();
    const rows = frame.locator('[data-key^="session:"] > .row .session-row');
    const sessions = await rows.evaluateAll((elements) =>
      elements.map((element) => ({ first: element.children[0].textContent, second: element.children[1].textContent, icon: element.querySelector('.session-state')?.className ?? '', tooltip: element.title, label: element.closest('[data-key]')?.getAttribute('aria-label') ?? '' })),
    );
    assert(sessions.length === 4, `four sessions: ${JSON.stringify(sessions)}`);
    for (const session of sessions) assert(session.first.startsWith('demo-1') && session.first.includes('Parse widget config'), `the issue leads: ${JSON.stringify(session)}`);
    const [working, waiting, idle, ended] = sessions;
    assert(working.second.startsWith('Claude Code 5f0c2a9e-4') && working.second.includes('working') && working.second.includes('compacted once'), `the working session: ${working.second}`);
    // Its transcript's last record ends the turn: waiting for input, in words, icon, tooltip (with the fact) and label.
    assert(waiting.second.startsWith('Claude Code c3d4e5f6') && waiting.second.includes('waiting for input'), `the waiting session: ${waiting.second}`);
    assert(waiting.icon.includes('session-waiting') && waiting.icon.includes('codicon-comment-discussion'), `the waiting session's icon: ${waiting.icon}`);
    assert(waiting.tooltip.includes('waiting for input (its transcript shows its turn ended'), `the tooltip says which fact decided: ${waiting.tooltip}`);
    assert(waiting.label.includes('waiting for input'), `the screen reader hears it: ${waiting.label}`);
    assert(idle.second.startsWith('Claude Code 5f0c2a9e-7') && idle.second.includes('idle') && !idle.second.includes('waiting'), `the idle session, told apart from the first: ${idle.second}`);
    assert(idle.tooltip.includes('does not show whether a turn is still running'), `idle says mid-turn is unknown: ${idle.tooltip}`);
    assert(ended.second.startsWith('Gemini CLI b81d0c3e') && ended.second.includes('ended'), `the ended session: ${ended.second}`);
  },

  async "the focused row's buttons keep clear of its title, and Tab never leaves the focus unseen"(helpers) {
    const { page } = helpers;
    const frame = helpers.webviewFrame();
    const focusedRow = treeItem(frame, 'focus:issue');
    await focusedRow.focus();
    const overlap = await focusedRow.evaluate((item) => {
      const title = item.querySelector(':scope > .row .title');
      const actions = item.querySelector(':scope > .row > .row-actions').getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(title);
      // The title's text on the buttons' line (its line boxes, not its element's box).
      const beside = [...range.getClientRects()].filter((rect) => rect.width > 0 && rect.top < actions.bottom && rect.bottom > actions.top);
      return { textRight: Math.round(Math.max(...beside.map((rect) => rect.right))), actionsLeft: Math.round(actions.left), actionsShown: actions.width > 0 };
    });
    assert(overlap.actionsShown && overlap.textRight <= overlap.actionsLeft, `the title ends before the buttons: ${JSON.stringify(overlap)}`);
    // Round the view with Tab, more presses than it has stops: every press lands on something the view shows focused.
    const path = [];
    for (let press = 0; press < 8; press += 1) {
      await page.keyboard.press('Tab');
      await page.waitForTimeout(100);
      path.push(await frame.locator('body').evaluate(() => {
        const active = document.activeElement;
        const name = `${active?.tagName ?? 'none'} ${active?.getAttribute('aria-label') ?? active?.getAttribute('data-action') ?? active?.className ?? ''}`;
        return { name, visible: !!active && active !== document.body && active.getClientRects().length > 0 && active.getBoundingClientRect().width > 2 };
      }));
    }
    assert(path.every((where) => where.visible), `Tab left the focus where nothing shows it: ${JSON.stringify(path)}`);
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

  async 'dark, light and high-contrast screenshots at 300 px and 500 px, no title cut'(helpers) {
    const frame = helpers.webviewFrame();
    const { page } = helpers;
    const defaultWidth = (await page.locator('.part.sidebar').boundingBox()).width;
    for (const [theme, avoid, bodyClass, name] of [
      ['Dark Modern', undefined, 'vscode-dark', 'narrow-dark'],
      ['Light Modern', undefined, 'vscode-light', 'narrow-light'],
      ['High Contrast', 'Light', 'vscode-high-contrast', 'narrow-high-contrast'],
    ]) {
      await useTheme(helpers, theme, avoid, bodyClass);
      for (const width of [300, 500]) {
        const got = await sideBarWidth(helpers, width === 300 ? defaultWidth : width);
        assert(Math.abs(got - (width === 300 ? defaultWidth : width)) <= 12, `${theme}: the side bar at ${width} px: ${got}`);
        await assertTitlesReadable(frame, `${theme} at ${Math.round(got)} px`);
        assert((await brokenWords(treeItem(frame, 'focus:issue').locator(':scope > .row .title').first())).length === 0, `${theme}: the focused title breaks between words`);
        await viewShot(helpers, `${name}-${width}`);
        await viewShot(helpers, `${name}-${width}-sessions`, 'section:sessions');
      }
    }
  },
};
