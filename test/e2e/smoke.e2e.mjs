// The packaged extension, installed from its VSIX, works in the real workbench.
export const workspace = { dialect: 'br', data: 'scenario' };

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
};
