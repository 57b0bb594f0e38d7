// Restricted Mode with the extension installed from its VSIX: Workspace Trust is on and the folder
// is not trusted. VS Code runs an installed extension there only because the manifest declares
// limited support (capabilities.untrustedWorkspaces); the extension then shows the issues from
// .beads/issues.jsonl read-only and starts no beads CLI, though the stand-ins are on PATH.
// Fresh dates: the scenario's work happened in the day before the run (the README's screenshot comes from here).
export const workspace = { dialect: 'br', data: 'scenario', now: Date.now() };
export const workspaceTrust = true;
export const settings = { 'chat.disableAIFeatures': true, 'workbench.secondarySideBar.defaultVisibility': 'hidden' };

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

export const tests = {
  async 'the Beads view shows the issues read-only and no beads CLI runs'({ page, webviewFrame, waitFor, standInCalls, screenshot }) {
    // The Restricted Mode indicator in the status bar says the window really is untrusted.
    await page.locator('.statusbar [aria-label*="Restricted Mode"], .statusbar-item:has-text("Restricted Mode")').first().waitFor({ timeout: 60_000 });
    const button = page.locator('.activitybar .action-item [aria-label^="Beads"]').first();
    await button.waitFor({ state: 'visible', timeout: 60_000 });
    await button.click();
    const frame = webviewFrame();
    const banner = await waitFor(async () => {
      const text = await frame.locator('body').innerText().catch(() => '');
      return text.includes('Read-only') && text;
    }, 'the read-only banner', 60_000);
    assert(/untrusted/.test(banner), `the banner says why: ${banner.slice(0, 300)}`);
    await frame.locator('[role="treeitem"][data-key="focus:issue"]').waitFor({ timeout: 30_000 });
    assert(standInCalls().length === 0, `no beads CLI may run in Restricted Mode: ${JSON.stringify(standInCalls())}`);
    // One line, not a quarter of the view; the whole reason is one click away.
    const readOnly = frame.locator('.banner-compact');
    const height = (await readOnly.boundingBox()).height;
    assert(height <= 40, `the read-only banner is one line (${height}px)`);
    await screenshot('restricted-mode');
    await readOnly.locator('summary .banner-text').click();
    await waitFor(async () => (await readOnly.getAttribute('open')) !== null, 'the banner opens on a click');
    assert((await readOnly.locator('.banner-detail').innerText()).includes('Claim, Close and Checkpoint are unavailable'), 'the details say what is off');
    // Its way out works: Manage Trust opens the Workspace Trust editor.
    await readOnly.locator('button[data-action="manageTrust"]').click();
    await page.locator('.workspace-trust-editor').first().waitFor({ timeout: 30_000 });
  },
};
