// What the e2e files share about the Beads view: the settings its screenshots are taken with,
// finding its rows, and opening it.

/** No chat side bar (it would take a third of every screenshot), in the default dark theme. */
export const VIEW_SCREENSHOT_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.colorTheme': 'Default Dark Modern',
};

/** The tree row with `key` (its data-key) in the view's frame. */
export function treeItem(frame, key) {
  return frame.locator(`[role="treeitem"][data-key="${key}"]`);
}

/** Shows the Beads view (without hiding it when it is already shown) and returns its frame once the tree is there. */
export async function openBeadsView({ page, webviewFrame }) {
  const button = page.locator('.activitybar .action-item a[aria-label^="Beads"], .activitybar .action-item [aria-label^="Beads"]').first();
  await button.waitFor({ state: 'visible', timeout: 60_000 });
  // Clicking the icon of the container already shown would hide the side bar.
  const checked = await button.evaluate((element) => element.closest('.action-item')?.classList.contains('checked') ?? false);
  if (!checked) await button.click();
  const frame = webviewFrame();
  await frame.locator('[role="tree"]').waitFor({ state: 'attached', timeout: 60_000 });
  return frame;
}
