// Headless Debian Chromium driven by playwright-core, one fresh profile per VS Code server.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { isolatedHomeEnv, loadPlaywright } from './runtime.mjs';

/** Opens a browser on `origin` with clipboard access; browser console lines go to `dir`/browser-console.log. */
export async function openBrowser(dir, origin) {
  const { chromium } = loadPlaywright();
  // Playwright refuses --user-data-dir in args; a persistent context takes the profile dir instead.
  const context = await chromium.launchPersistentContext(path.join(dir, 'chromium-profile'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // Chromium writes crash reports and dconf under the home: the run's, as for its server.
    env: { ...process.env, ...isolatedHomeEnv(dir) },
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(30_000);
  const consoleLog = path.join(dir, 'browser-console.log');
  page.on('console', (message) => fs.appendFileSync(consoleLog, `[${message.type()}] ${formatConsole(message)}\n`));
  page.on('pageerror', (error) => fs.appendFileSync(consoleLog, `[pageerror] ${error.stack ?? error.message}\n`));
  return { context, page, consoleLog };
}

// The workbench logs with console.log('%c INFO', 'color: …', format, ...args); drop the styling.
function formatConsole(message) {
  const text = message.text();
  if (!text.startsWith('%c')) return text;
  const args = message.args().map((handle) => handle.toString().replace(/^JSHandle@/, ''));
  return `${args[0].slice(2).trim()} ${util.format(...args.slice(2))}`;
}
