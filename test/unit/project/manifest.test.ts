// The manifest is what the Marketplace, Open VSX and VS Code read before any code runs: the icon,
// the walkthrough's images, Restricted Mode support and the files the VSIX carries must all be
// real, or the listing is broken and nothing fails. `vsce ls` lists what `npm run package` packs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Commands, WALKTHROUGH_ID } from '../../../src/adapters/commandIds';

const repoRoot = path.resolve(__dirname, '../../..');

interface WalkthroughStep {
  id: string;
  description: string;
  media: { image: string; altText: string };
}

interface Manifest {
  publisher: string;
  name: string;
  icon: string;
  repository: { url: string };
  capabilities: {
    untrustedWorkspaces: { supported: string; description: string; restrictedConfigurations: string[] };
    virtualWorkspaces: { supported: boolean };
  };
  scripts: Record<string, string>;
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { scope?: string }> };
    walkthroughs: { id: string; steps: WalkthroughStep[] }[];
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(path.join(repoRoot, file));
  expect(bytes.subarray(1, 4).toString('latin1'), `${file} is a PNG`).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('the extension manifest', () => {
  it('has a 128×128 PNG icon and says where the project lives', () => {
    expect(manifest.icon).toMatch(/\.png$/);
    expect(pngSize(manifest.icon)).toEqual({ width: 128, height: 128 });
    expect(manifest.repository.url).toMatch(/^https:\/\//);
  });

  it('packages without the escape flags', () => {
    expect(manifest.scripts.package).toMatch(/^vsce package /);
    expect(manifest.scripts.package).not.toMatch(/--allow-missing-repository|--skip-license|--allow-star-activation/);
  });

  it('runs limited in Restricted Mode, restricting only its own settings, and not in virtual workspaces', () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    expect(untrusted.supported).toBe('limited');
    expect(untrusted.description).toMatch(/read-only/);
    const settings = Object.keys(manifest.contributes.configuration.properties);
    expect(untrusted.restrictedConfigurations).toEqual(expect.arrayContaining(['beadsRecovery.cli', 'beadsRecovery.cliPath']));
    for (const name of untrusted.restrictedConfigurations) expect(settings).toContain(name);
    expect(manifest.contributes.configuration.properties['beadsRecovery.cliPath'].scope).toBe('machine');
    expect(manifest.capabilities.virtualWorkspaces.supported).toBe(false);
  });

  it('has the getting-started walkthrough the extension opens, with a real image for every step', () => {
    const [publisherAndName, id] = WALKTHROUGH_ID.split('#');
    expect(publisherAndName).toBe(`${manifest.publisher}.${manifest.name}`);
    const walkthrough = manifest.contributes.walkthroughs.find((candidate) => candidate.id === id);
    expect(walkthrough?.steps.map((step) => step.id)).toEqual(['whatItDoes', 'openView', 'installHooks', 'copyContext']);
    for (const step of walkthrough?.steps ?? []) {
      expect(step.media.altText).not.toBe('');
      expect(pngSize(step.media.image).width).toBeGreaterThan(300);
    }
    // Every command a step links to is one the extension contributes, or the view it opens.
    const contributed = new Set(manifest.contributes.commands.map((command) => command.command));
    const linked = (walkthrough?.steps ?? []).flatMap((step) => [...step.description.matchAll(/\(command:([\w.]+)(?:\?[^)]*)?\)/g)].map((match) => match[1]));
    expect(linked.length).toBeGreaterThan(0);
    for (const command of linked) expect(contributed.has(command) || command === 'workbench.view.extension.beadsRecovery').toBe(true);
    // VS Code hides a step's media in an editor narrower than 950 px: each step links to its picture.
    for (const step of walkthrough?.steps ?? []) {
      const link = /\(command:beadsRecovery\.showWalkthroughImage\?([^)]+)\)/.exec(step.description);
      expect(link, step.id).not.toBeNull();
      const [picture] = JSON.parse(decodeURIComponent(link?.[1] ?? '[]')) as string[];
      expect(step.media.image).toBe(`media/walkthrough/${picture}.png`);
    }
  });

  it('contributes only commands the extension registers', () => {
    const registered: string[] = Object.values(Commands);
    for (const { command } of manifest.contributes.commands) expect(registered).toContain(command);
  });

  it('packs the licence, the icon and the walkthrough images, and nothing of the sources', () => {
    const vsce = path.join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
    const listed = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: repoRoot, encoding: 'utf8' })
      .split(/\r?\n/)
      .filter(Boolean);
    const walkthroughImages = manifest.contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps.map((step) => step.media.image));
    expect(listed).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', manifest.icon, ...walkthroughImages]));
    expect(listed.filter((file) => /^(src|test|scripts|docs|node_modules)\//.test(file))).toEqual([]);
  });
});
