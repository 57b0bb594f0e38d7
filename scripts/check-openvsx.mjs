#!/usr/bin/env node
// Open VSX readiness, checked offline: Cursor, Windsurf and VSCodium install extensions only from
// Open VSX, so the package must be one `ovsx publish` accepts. Publishing itself needs the network
// and a token (docs/PUBLISHING.md); everything below runs without either.
//
// From `ovsx` itself (the npm package, whose checks run before it publishes):
//   - validateManifest: `publisher`, `name` and `version` are present;
//   - isLicenseOk: a `license` field or a LICENSE file (a license is mandatory on open-vsx.org);
//   - readVSIXPackage: the manifest inside the packaged VSIX, which `ovsx publish <file>` reads.
// Open VSX's documented rules, checked here (no tool offers them offline):
//   - the `publisher` is the namespace the extension is published into (ovsx README, "Create a
//     Namespace"), and a namespace name matches [\w\-\+\$~]+ (Open VSX wiki, "Namespace Access");
//   - a `repository` (vsce, which ovsx packages with, refuses a manifest without one unless told to);
//   - the icon is a PNG inside the package (vsce refuses SVG icons);
//   - no `enabledApiProposals`: a proposed API runs only in VS Code Insiders, never in a release of
//     VS Code or of Cursor, Windsurf and VSCodium, and the Marketplace refuses such packages;
//   - `engines.vscode` is set (vsce refuses a manifest without it).
//
// Usage: node scripts/check-openvsx.mjs [path/to/package.vsix]   (exit 1 and the problems on stderr)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { isLicenseOk, validateManifest } = require('ovsx');
const { readVSIXPackage } = require('ovsx/lib/zip');

const NAMESPACE = /^[\w\-+$~]+$/;

/**
 * What Open VSX would refuse in the extension at `dir` (its package.json), and, given
 * `vsixManifest`, in the packaged manifest too. Empty when it is ready.
 */
export async function openVsxProblems(dir, { manifest, vsixManifest } = {}) {
  const problems = [];
  const own = manifest ?? JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  try {
    validateManifest(own);
  } catch (error) {
    problems.push(`ovsx: ${error.message}`);
  }
  // isLicenseOk validates the manifest first, and throws what validateManifest reported above.
  if (!(await isLicenseOk(dir, own).catch(() => true))) problems.push('ovsx: no license (a `license` field or a LICENSE file): open-vsx.org accepts only licensed extensions');
  if (typeof own.publisher === 'string' && !NAMESPACE.test(own.publisher)) problems.push(`publisher "${own.publisher}" is not a valid Open VSX namespace ([\\w\\-+$~]+)`);
  const repository = typeof own.repository === 'string' ? own.repository : own.repository?.url;
  if (typeof repository !== 'string' || !/^https:\/\//.test(repository)) problems.push('no https `repository` url');
  if (typeof own.icon !== 'string' || !/\.png$/i.test(own.icon)) problems.push('the icon must be a PNG');
  else if (!fs.existsSync(path.join(dir, own.icon))) problems.push(`the icon ${own.icon} does not exist`);
  if (own.enabledApiProposals !== undefined) problems.push('`enabledApiProposals`: proposed APIs do not run in Cursor, Windsurf, VSCodium or a VS Code release');
  if (typeof own.engines?.vscode !== 'string') problems.push('no `engines.vscode`');
  if (vsixManifest) {
    try {
      validateManifest(vsixManifest);
    } catch (error) {
      problems.push(`ovsx (packaged manifest): ${error.message}`);
    }
    for (const key of ['publisher', 'name', 'version', 'license']) {
      if (vsixManifest[key] !== own[key]) problems.push(`the packaged manifest's ${key} (${vsixManifest[key]}) differs from package.json's (${own[key]})`);
    }
  }
  return problems;
}

async function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const vsix = process.argv[2];
  const vsixManifest = vsix ? await readVSIXPackage(vsix) : undefined;
  const problems = await openVsxProblems(root, { vsixManifest });
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`open-vsx: ${problem}\n`);
    process.exit(1);
  }
  process.stdout.write(`open-vsx: ready to publish${vsix ? ` ${path.basename(vsix)}` : ''}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`open-vsx: ${error.message}\n`);
    process.exit(1);
  });
}
