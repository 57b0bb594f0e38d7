// @beads with no language model, in the real workbench (code-server here has no model: its
// built-in Copilot cannot sign in). VS Code resolves a model before it calls any chat participant
// (ExtHostChatAgents2.$invokeAgent → getModelForRequest, which throws "Language model
// unavailable"), so the participant's handler never runs there. The same answers, from the same
// handler, come from "Beads: Show @beads Answer (No Chat Model Needed)…", which needs no chat.
export const workspace = { dialect: 'br', data: 'scenario' };

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** The text of the active editor, as the workbench renders it (the lines in sight). */
async function editorText(page) {
  // Monaco draws spaces as no-break spaces.
  return (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
}

function readyCalls(helpers) {
  return helpers.standInCalls().filter((call) => call.args?.[0] === 'ready').length;
}

export const tests = {
  async '@beads /ready in chat with no model: VS Code answers for the participant, which never runs'(helpers) {
    const { page } = helpers;
    await page.locator('.statusbar-item', { hasText: 'demo-1' }).first().waitFor({ timeout: 60_000 });
    const inputPart = page.locator('.interactive-input-part').first();
    await inputPart.waitFor({ timeout: 30_000 });
    // The status bar and the view have read the ready queue by now; the participant would read it again.
    await page.waitForTimeout(2000);
    const before = readyCalls(helpers);
    await inputPart.locator('.monaco-editor').first().click();
    await page.keyboard.type('@beads /ready ');
    await page.keyboard.press('Enter');
    let last = '';
    const answer = await helpers
      .waitFor(async () => {
        last = await page.locator('.interactive-list').first().innerText().catch(() => '');
        return /Language model unavailable|sign in|set up/i.test(last) && last;
      }, 'the chat answers the request', 60_000)
      .catch(async (error) => {
        await helpers.screenshot('chat-no-model-unanswered');
        throw new Error(`${error.message}; the chat shows: ${last.slice(0, 600)}`);
      });
    await helpers.screenshot('chat-no-model');
    assert(!answer.includes('Ready work'), `the participant did not answer: ${answer.slice(0, 400)}`);
    assert(readyCalls(helpers) === before, 'the participant never ran: nothing read the ready queue for it');
  },

  async 'Show @beads Answer gives /ready from data alone, with no chat model'(helpers) {
    const { page } = helpers;
    await helpers.runPalette('Beads: Show @beads Answer (No Chat Model Needed)…');
    const pick = page.locator('.quick-input-widget');
    await helpers.waitFor(async () => (await pick.innerText()).includes('/ready'), 'the three answers to pick from');
    await page.keyboard.type('/ready');
    await page.keyboard.press('Enter');
    const text = await helpers.waitFor(async () => {
      const shown = await editorText(page).catch(() => '');
      return shown.includes('Ready work') && shown;
    }, 'the /ready answer in an editor', 30_000);
    for (const id of ['demo-8', 'demo-9', 'demo-10']) assert(text.includes(id), `${id} is listed: ${text.slice(0, 600)}`);
    assert(/parent\s+`?demo-epic/.test(text), `a ready issue names its parent: ${text.slice(0, 600)}`);
    assert(!text.includes('demo-5'), 'demo-5 is blocked, not ready');
    const tab = page.locator('.tabs-container .tab.active');
    assert((await tab.innerText()).includes('@beads ready'), `the tab says what it is: ${await tab.innerText()}`);
    await helpers.screenshot('chat-answer-ready');
  },
};
