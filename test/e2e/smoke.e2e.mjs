// The packaged extension, installed from its VSIX, works in the real workbench.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const standInBr = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/bin/br');
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
  async 'Beads: Set CLI Path… checks the path and saves it in the remote machine\'s settings'({ page, runPalette, waitFor, workspace, userDataDir }) {
    await runPalette('Beads: Set CLI Path…');
    const input = page.locator('.quick-input-widget input');
    const message = page.locator('.quick-input-widget .quick-input-message');
    await input.fill('br');
    await waitFor(async () => (await message.innerText()).includes('full path'), 'the message asking for a full path');
    await input.fill(path.join(workspace, 'no-such-br'));
    await waitFor(async () => (await message.innerText()).includes('does not exist'), 'the message saying the file does not exist');
    await input.fill(standInBr);
    await waitFor(async () => !(await message.innerText()).includes('does not exist'), 'the stand-in br accepted');
    await page.keyboard.press('Enter');
    // code-server is a remote window: a machine setting belongs in the server's Machine settings,
    // which is where the Settings editor's Remote tab reads it, not in the User settings.
    const machineSettings = path.join(userDataDir, 'Machine', 'settings.json');
    await waitFor(() => fs.existsSync(machineSettings) && fs.readFileSync(machineSettings, 'utf8').includes('beadsRecovery.cliPath'), 'beadsRecovery.cliPath in the Machine settings');
    const saved = JSON.parse(fs.readFileSync(machineSettings, 'utf8'))['beadsRecovery.cliPath'];
    if (saved !== standInBr) throw new Error(`saved ${saved}, expected ${standInBr}`);
    const userSettings = fs.readFileSync(path.join(userDataDir, 'User', 'settings.json'), 'utf8');
    if (userSettings.includes('beadsRecovery.cliPath')) throw new Error('the machine setting leaked into the User settings');
  },
};

