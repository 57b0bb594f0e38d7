// Open VSX readiness (scripts/check-openvsx.mjs, run in CI after `npm run package`): the
// extension's own manifest passes ovsx's offline checks and Open VSX's documented rules, each rule
// fails on a manifest that breaks it, and a packaged VSIX is read the way `ovsx publish <file>` reads it.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createVSIX } from '@vscode/vsce';
import { readVSIXPackage } from 'ovsx/lib/zip';
import { afterAll, describe, expect, it } from 'vitest';
import { openVsxProblems } from '../../../scripts/check-openvsx.mjs';

const REPO = resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
const base = mkdtempSync(join(tmpdir(), 'openvsx-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

/** A minimal extension folder: its manifest, an icon, a README and (unless told not to) a LICENSE. */
function extension(fields: Record<string, unknown>, { license = true } = {}): { dir: string; manifest: Record<string, unknown> } {
  const dir = join(base, `ext-${++counter}`);
  mkdirSync(join(dir, 'media'), { recursive: true });
  copyFileSync(join(REPO, 'media', 'icon.png'), join(dir, 'media', 'icon.png'));
  writeFileSync(join(dir, 'README.md'), '# A test extension\n');
  if (license) writeFileSync(join(dir, 'LICENSE'), 'MIT License\n');
  const own = {
    name: 'openvsx-probe',
    publisher: 'beads-recovery',
    version: '0.0.1',
    license: 'MIT',
    icon: 'media/icon.png',
    repository: { type: 'git', url: 'https://github.com/beads-recovery/beads-recovery.git' },
    engines: { vscode: '^1.95.0' },
    ...fields,
  };
  for (const [key, value] of Object.entries(own)) if (value === undefined) delete (own as Record<string, unknown>)[key];
  writeFileSync(join(dir, 'package.json'), JSON.stringify(own, null, 2));
  return { dir, manifest: own };
}

describe('Open VSX readiness', () => {
  it("the extension's own manifest is ready: license, repository, PNG icon, a namespace publisher, no proposed APIs", async () => {
    expect(await openVsxProblems(REPO, { manifest })).toEqual([]);
  });

  it.each([
    ['no license field and no LICENSE file', { license: undefined }, { license: false }, /no license/],
    ['a publisher that is no Open VSX namespace', { publisher: 'beads recovery!' }, {}, /not a valid Open VSX namespace/],
    ['no repository', { repository: undefined }, {}, /repository/],
    ['an SVG icon', { icon: 'media/icon.svg' }, {}, /PNG/],
    ['proposed APIs', { enabledApiProposals: ['chatParticipantPrivate'] }, {}, /enabledApiProposals/],
    ['no version', { version: undefined }, {}, /ovsx: Missing required field 'version'/],
    ['no engines.vscode', { engines: {} }, {}, /engines\.vscode/],
  ] as const)('refuses %s', async (_, fields, options, problem) => {
    const { dir, manifest: own } = extension(fields, options);
    expect((await openVsxProblems(dir, { manifest: own })).join('\n')).toMatch(problem);
  });

  it('a LICENSE file alone is a license, as ovsx counts it', async () => {
    const { dir, manifest: own } = extension({ license: undefined });
    expect(await openVsxProblems(dir, { manifest: own })).toEqual([]);
  });

  it('reads the manifest inside a packaged VSIX (offline, as ovsx publish <file> does) and holds it to package.json', async () => {
    const { dir, manifest: own } = extension({});
    const vsix = join(dir, 'probe.vsix');
    await createVSIX({ cwd: dir, packagePath: vsix, dependencies: false });
    const packaged = (await readVSIXPackage(vsix)) as unknown as Record<string, unknown>;
    expect(await openVsxProblems(dir, { manifest: own, vsixManifest: packaged })).toEqual([]);
    expect((await openVsxProblems(dir, { manifest: { ...own, version: '0.0.2' }, vsixManifest: packaged })).join('\n')).toMatch(/packaged manifest's version \(0\.0\.1\)/);
  }, 60_000);
});
