// UI tests: the extension installed from its packaged VSIX, the real workbench in headless
// Chromium. Every test/e2e/*.e2e.mjs file gets its own server, browser and fresh workspace, and
// exports `tests`, an object of named async functions run in order with the helpers below, and
// optionally `workspace` ({ dialect, data }), `settings` (user settings) and `workspaceTrust`
// (true: Workspace Trust on, the folder opens untrusted, in Restricted Mode) for its run.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openBrowser } from './browser.mjs';
import { makeBeadsWorkspace, pathWithStandIns, standInEnv } from './beads-env.mjs';
import { elapsed, installVsix, log, repoRoot, sleep, startServer, tail, withTimeout } from './runtime.mjs';

const e2eDir = path.join(repoRoot, 'test/e2e');
const resultsDir = path.join(repoRoot, 'test-results');
export const vsixPath = path.join(repoRoot, 'dist/beads-recovery.vsix');

export async function runE2e(runDir, tally) {
  if (!fs.existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run npm run build && npm run package`);
  const extensionsDir = path.join(runDir, 'extensions');
  installVsix(vsixPath, extensionsDir, runDir);
  fs.mkdirSync(resultsDir, { recursive: true });
  const wanted = process.env.BEADS_E2E_FILTER;
  const files = fs.readdirSync(e2eDir).filter((name) => name.endsWith('.e2e.mjs')).sort();
  for (const file of files) {
    const module = await import(pathToFileURL(path.join(e2eDir, file)).href);
    const tests = Object.entries(module.tests ?? {})
      .filter(([name]) => !wanted || `${file} ${name}`.includes(wanted));
    if (tests.length === 0) continue;
    const dir = path.join(runDir, path.basename(file, '.e2e.mjs'));
    try {
      await runFile(dir, file, module, tests, extensionsDir, tally);
    } catch (error) {
      tally.failed += 1;
      console.log(`  ✗ ${file}: ${error.message}`);
      console.log(`--- ${dir}/server.log (tail) ---\n${tail(path.join(dir, 'server.log'), 2000)}`);
    }
  }
}

async function runFile(dir, file, module, tests, extensionsDir, tally) {
  fs.mkdirSync(dir, { recursive: true });
  const workspace = await makeBeadsWorkspace(path.join(dir, 'ws'), module.workspace);
  const standIns = standInEnv(dir);
  const server = await startServer({
    dir, workspace, extensionsDir, settings: module.settings, workspaceTrust: module.workspaceTrust, env: { PATH: pathWithStandIns(), ...standIns },
  });
  let browser;
  try {
    browser = await openBrowser(dir, server.origin);
    const { page } = browser;
    const opened = Date.now();
    await page.goto(server.folderUrl());
    await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
    log(`${file}: workbench up after ${elapsed(opened)}`);
    const helpers = makeHelpers(page, { workspace, userDataDir: server.userDataDir, ...standIns });
    const timeoutMs = Number(process.env.BEADS_E2E_TEST_TIMEOUT_MS || 90_000);
    for (const [name, test] of tests) {
      const started = Date.now();
      try {
        await withTimeout(test(helpers), timeoutMs, name);
        tally.passed += 1;
        console.log(`  ✓ ${file} › ${name} (${elapsed(started)})`);
      } catch (error) {
        tally.failed += 1;
        const shot = await helpers.screenshot(`FAILED-${path.basename(file, '.e2e.mjs')}-${name}`).catch(() => '(none)');
        console.log(`  ✗ ${file} › ${name} (${elapsed(started)})\n${String(error.stack ?? error).replace(/^/gm, '      ')}\n      screenshot: ${shot}`);
      }
    }
  } finally {
    await browser?.context.close().catch(() => {});
    await server.stop();
  }
}

function makeHelpers(page, { workspace, userDataDir, BEADS_STANDIN_FAULT_FILE: faultFile, BEADS_STANDIN_LOG: callLog }) {
  return {
    page,
    workspace,
    /** The server's user data: User/ and Machine/ settings.json. */
    userDataDir,
    faultFile,
    callLog,

    /**
     * Runs a command from the command palette by its full title, e.g. "Beads: Refresh". The palette
     * lists the commands known when it opens, and extensions register theirs only once the
     * extension host is up, so it reopens until the command shows.
     */
    async runPalette(title, timeoutMs = 30_000) {
      const input = page.locator('.quick-input-widget input');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      const deadline = Date.now() + timeoutMs;
      // A webview that finishes loading (an image preview just opened, say) takes the focus: the
      // palette then closes as soon as it opened, or F1 goes to the webview. Every step is short
      // and the palette is opened again, each time waiting longer for it, until the deadline.
      for (let attemptMs = 2000; ; attemptMs = Math.min(attemptMs * 2, 10_000)) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('F1');
        const shown = await input.waitFor({ state: 'visible', timeout: attemptMs })
          .then(() => input.fill(`>${title}`, { timeout: attemptMs }))
          .then(() => row.waitFor({ state: 'visible', timeout: 2000 }))
          .then(() => true, () => false);
        if (shown) break;
        if (Date.now() > deadline) throw new Error(`"${title}" is not in the command palette after ${timeoutMs} ms`);
      }
      await page.keyboard.press('Enter');
      // The palette is done once its query is gone: the widget hides, or the command reuses it
      // straight away for an input box or quick pick of its own.
      const query = `>${title}`;
      const closedBy = Date.now() + timeoutMs;
      while ((await input.isVisible()) && (await input.inputValue()) === query) {
        if (Date.now() > closedBy) throw new Error(`the command palette still shows "${query}" after ${timeoutMs} ms`);
        await page.waitForTimeout(50);
      }
    },

    /** The content of the visible webview (the nested iframe that holds the extension's page). */
    webviewFrame() {
      return page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('#active-frame');
    },

    readClipboard() {
      return page.evaluate('navigator.clipboard.readText()');
    },

    writeClipboard(text) {
      return page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
    },

    /** Polls `probe` until it returns a truthy value, and returns that value. */
    async waitFor(probe, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value) return value;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await sleep(200);
      }
    },

    /** Saves a full-page screenshot as test-results/<name>.png and returns its path. */
    async screenshot(name) {
      const file = path.join(resultsDir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
      await page.screenshot({ path: file });
      return file;
    },

    /** Every stand-in CLI call so far, one parsed JSON object each. */
    standInCalls() {
      if (!fs.existsSync(callLog)) return [];
      return fs.readFileSync(callLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    },
  };
}
