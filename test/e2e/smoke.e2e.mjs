// The packaged extension, installed from its VSIX, works in the real workbench.
export const workspace = { dialect: 'br', data: 'scenario' };
// The chat side bar would narrow the editor, and the walkthrough drops its images when narrow.
export const settings = { 'chat.disableAIFeatures': true, 'workbench.secondarySideBar.defaultVisibility': 'hidden' };

export const tests = {
  async 'Beads: Copy Recovery Context from the palette puts the demo-1 block on the clipboard'({ runPalette, readClipboard, writeClipboard, waitFor, screenshot }) {
    await writeClipboard('');
    await runPalette('Beads: Copy Recovery Context');
    const copied = await waitFor(async () => {
      const text = await readClipboard();
      return text.includes('## Resuming: demo-1') && text;
    }, 'the recovery context on the clipboard');
    if (!copied.includes('## Resuming: demo-1 — Parse widget config')) throw new Error(`unexpected block:\n${copied}`);
    await screenshot('smoke-after-copy');
  },
  async 'Beads: Get Started opens the walkthrough with its four steps and their images'({ page, runPalette, waitFor, screenshot }) {
    // The walkthrough drops its images when the editor is narrow: give it the window's width.
    await runPalette('View: Close Primary Side Bar');
    await runPalette('Beads: Get Started');
    const titles = page.locator('.gettingStartedContainer .getting-started-step .step-title');
    await waitFor(async () => (await titles.count()) === 4, 'the four walkthrough steps', 30_000);
    const texts = await titles.allInnerTexts();
    const expected = ['What Beads Recovery does', 'Open the Beads view', 'Install agent hooks', 'Copy the recovery context'];
    if (JSON.stringify(texts) !== JSON.stringify(expected)) throw new Error(`walkthrough steps: ${JSON.stringify(texts)}`);
    for (const [index, title] of expected.entries()) {
      await titles.nth(index).click();
      const image = page.locator('.gettingStartedContainer .getting-started-media img').first();
      await waitFor(() => image.evaluate((element) => element.complete && element.naturalWidth > 0 && element.getBoundingClientRect().width > 200), `the image of "${title}" on screen`);
    }
    await screenshot('walkthrough');
  },
};

