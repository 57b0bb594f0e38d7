// Whether bd's own `bd prime` already reaches an agent, from the files `bd setup` writes, and what
// the hook output looks like with and without it (goldens: goldenFiles.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookResponse } from '../../../src/core/hookProtocol';
import { bdPrimeReachesAgent, type AgentConfigFile } from '../../../src/core/primeDetection';
import { buildRecoveryContext } from '../../../src/core/recovery';
import { detectBdPrime } from '../../../src/services/primeDetection';
import { expectGolden } from '../support/goldenFiles';
import { resumeInput } from '../support/recoveryFixtures';

const sessionStart = (command: string) => JSON.stringify({ hooks: { SessionStart: [{ matcher: '', hooks: [{ type: 'command', command }] }] } });
const file = (filePath: string, text: string, scope: 'project' | 'user' = 'project'): AgentConfigFile => ({ scope, path: filePath, text });

describe('bdPrimeReachesAgent', () => {
  it("sees `bd setup claude`'s SessionStart hook, in the project or the user's settings", () => {
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', sessionStart('bd prime --hook-json'))])).toEqual({
      present: true,
      reason: 'a bd prime SessionStart hook in .claude/settings.json',
    });
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', sessionStart('bd prime --stealth --hook-json'), 'user')]).present).toBe(true);
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.local.json', sessionStart('/usr/local/bin/bd prime'))]).present).toBe(true);
  });

  it('sees the beads Claude plugin when it is enabled, and only then', () => {
    const enabled = bdPrimeReachesAgent('claude', [file('.claude/settings.json', JSON.stringify({ enabledPlugins: { 'beads@beads-marketplace': true } }), 'user')]);
    expect(enabled).toEqual({ present: true, reason: 'the beads Claude plugin, enabled in ~/.claude/settings.json' });
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', JSON.stringify({ enabledPlugins: { 'beads@beads-marketplace': false } }))]).present).toBe(false);
  });

  it('sees the Codex, Cursor and Copilot entries bd setup writes', () => {
    const codex = JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup|resume|clear', hooks: [{ type: 'command', command: 'bd codex-hook SessionStart' }] }] } });
    expect(bdPrimeReachesAgent('codex', [file('.codex/hooks.json', codex)]).present).toBe(true);
    const cursor = JSON.stringify({ version: 1, hooks: { sessionStart: [{ command: 'bd cursor-hook sessionStart' }] } });
    expect(bdPrimeReachesAgent('cursor', [file('.cursor/hooks.json', cursor)]).present).toBe(true);
    const copilot = JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'bd prime', powershell: 'bd prime', timeoutSec: 10 }] } });
    // Plain text from a hook reaches neither VS Code (stdout is JSON) nor Copilot CLI (a top-level additionalContext only).
    expect(bdPrimeReachesAgent('copilot', [file('.github/hooks/beads.json', copilot)])).toEqual({ present: false });
  });

  it("sees beads' Codex plugin enabled in config.toml, the project's layer over the user's, while plugins and hooks are on", () => {
    const plugin = (enabled: boolean) => `[plugins."beads@beads-marketplace"]\nenabled = ${enabled}\n`;
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', plugin(true), 'user')])).toEqual({
      present: true,
      reason: "beads' Codex plugin, enabled in ~/.codex/config.toml",
    });
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', `[features]\nhooks = true\n\n${plugin(true)}`)])).toEqual({
      present: true,
      reason: "beads' Codex plugin, enabled in .codex/config.toml",
    });
    // The project disables what the user enabled; the user's file cannot re-enable the project's choice.
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', plugin(false)), file('.codex/config.toml', plugin(true), 'user')]).present).toBe(false);
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', plugin(false), 'user'), file('.codex/config.toml', plugin(true))]).present).toBe(true);
    // Installed but not enabled, another plugin, plugins or hooks switched off, a file that is not TOML.
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', '[plugins."beads@beads-marketplace"]\n')]).present).toBe(false);
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', '[plugins."beadsish@x"]\nenabled = true\n')]).present).toBe(false);
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', `[features]\nplugins = false\n\n${plugin(true)}`)]).present).toBe(false);
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', '[features]\nhooks = false\n'), file('.codex/config.toml', plugin(true), 'user')]).present).toBe(false);
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', `[features]\ncodex_hooks = false\n${plugin(true)}`)]).present).toBe(false);
    expect(bdPrimeReachesAgent('codex', [file('.codex/config.toml', `${plugin(true)}[[[`)]).present).toBe(false);
    // Only Codex reads it.
    expect(bdPrimeReachesAgent('claude', [file('.codex/config.toml', plugin(true))]).present).toBe(false);
  });

  it('ignores other events, other commands, other agents’ files, and files that are not JSON', () => {
    const preCompactOnly = JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'bd prime' }] }] } });
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', preCompactOnly)]).present).toBe(false);
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', sessionStart('node cli.js context --format claude-hook # beads-recovery'))]).present).toBe(false);
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', sessionStart('echo abd prime'))]).present).toBe(false);
    expect(bdPrimeReachesAgent('claude', [file('.codex/hooks.json', sessionStart('bd prime'))]).present).toBe(false);
    expect(bdPrimeReachesAgent('copilot', [file('.github/hooks/sub/beads.json', sessionStart('bd prime'))]).present).toBe(false);
    expect(bdPrimeReachesAgent('claude', [file('.claude/settings.json', '{ "hooks": ')]).present).toBe(false);
  });
});

describe('detectBdPrime reads the agent files of the project and the home folder', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'beads-prime-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const folder = (name: string, files: Record<string, string> = {}) => {
    const dir = path.join(scratch, name);
    for (const [relative, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
      writeFileSync(path.join(dir, relative), text);
    }
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it('finds nothing in empty folders', async () => {
    expect(await detectBdPrime('claude', { projectFolders: [folder('empty')], home: folder('empty-home') })).toEqual({ present: false });
  });

  it('finds the project hook, the home plugin, a Copilot hook file and a moved Codex home', async () => {
    const project = folder('project', { '.claude/settings.json': sessionStart('bd prime --hook-json'), '.github/hooks/beads.json': JSON.stringify({ hooks: { sessionStart: [{ bash: 'bd prime' }] } }) });
    const home = folder('home', { '.claude/settings.json': JSON.stringify({ enabledPlugins: { 'beads@x': true } }) });
    expect((await detectBdPrime('claude', { projectFolders: [project], home: folder('other-home') })).present).toBe(true);
    expect((await detectBdPrime('claude', { projectFolders: [folder('empty')], home })).present).toBe(true);
    expect((await detectBdPrime('copilot', { projectFolders: [project], home })).present).toBe(false);
    const codexHome = folder('codex-home', { 'hooks.json': sessionStart('bd codex-hook SessionStart') });
    expect((await detectBdPrime('codex', { projectFolders: [project], home, codexHome })).present).toBe(true);
    expect((await detectBdPrime('codex', { projectFolders: [project], home: folder('empty-home') })).present).toBe(false);
  });

  it("reads Codex's config.toml in the project and in the moved Codex home", async () => {
    const plugin = '[plugins."beads@beads-marketplace"]\nenabled = true\n';
    const project = folder('codex-project', { '.codex/config.toml': plugin });
    expect(await detectBdPrime('codex', { projectFolders: [project], home: folder('empty-home') })).toEqual({ present: true, reason: "beads' Codex plugin, enabled in .codex/config.toml" });
    const codexHome = folder('codex-home-plugin', { 'config.toml': plugin });
    expect((await detectBdPrime('codex', { projectFolders: [folder('empty')], home: folder('empty-home'), codexHome })).present).toBe(true);
    expect((await detectBdPrime('codex', { projectFolders: [folder('empty')], home: folder('home-with-codex', { '.codex/config.toml': plugin }) })).present).toBe(true);
  });
});

describe('hook output', () => {
  it('carries the full block when bd prime does not reach the agent', () => {
    const markdown = buildRecoveryContext(resumeInput()).markdown;
    expect(markdown).toContain('## Core Rules');
    expectGolden('hook-without-prime', JSON.stringify(JSON.parse(hookResponse('claude', 'SessionStart', markdown)), null, 2));
  });

  it('carries the work state alone when it does, with room for more of it', () => {
    const markdown = buildRecoveryContext(resumeInput({ omitRules: true })).markdown;
    expect(markdown).not.toContain('## Core Rules');
    expect(markdown).not.toContain('## Essential Commands');
    expect(markdown).toContain('## Resuming: bd-a1b — Implement widget parser');
    // The rules' bytes go to the work: nothing of it is dropped at the default budget.
    expect(buildRecoveryContext(resumeInput({ omitRules: true })).dropped).toEqual([]);
    expectGolden('hook-with-prime', JSON.stringify(JSON.parse(hookResponse('claude', 'SessionStart', markdown)), null, 2));
  });
});
