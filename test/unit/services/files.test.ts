import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertWriteStaysInside, isInsideFolder, OutsideWorkspaceError } from '../../../src/services/files';
import { hooksCommand } from '../../../src/bin/hooks';

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'beads-files-')));

function folders(name: string): { workspace: string; outside: string } {
  const workspace = path.join(scratch, name, 'workspace');
  const outside = path.join(scratch, name, 'outside');
  mkdirSync(path.join(workspace, '.claude'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  return { workspace, outside };
}

describe('isInsideFolder', () => {
  it('tells inside from outside on POSIX paths', () => {
    expect(isInsideFolder('/w/proj', '/w/proj/.claude/settings.json', path.posix)).toBe(true);
    expect(isInsideFolder('/w/proj', '/w/proj', path.posix)).toBe(true);
    expect(isInsideFolder('/w/proj', '/w/project/x', path.posix)).toBe(false);
    expect(isInsideFolder('/w/proj', '/w/other', path.posix)).toBe(false);
    expect(isInsideFolder('/w/proj', '/w/proj/..data/x', path.posix)).toBe(true);
  });

  it('tells inside from outside on Windows paths, drives and case included', () => {
    expect(isInsideFolder('C:\\w\\proj', 'C:\\w\\proj\\.claude\\settings.json', path.win32)).toBe(true);
    expect(isInsideFolder('C:\\w\\proj', 'c:\\W\\Proj\\x', path.win32)).toBe(true);
    expect(isInsideFolder('C:\\w\\proj', 'D:\\w\\proj\\x', path.win32)).toBe(false);
    expect(isInsideFolder('C:\\w\\proj', 'C:\\w\\other\\x', path.win32)).toBe(false);
  });
});

describe.skipIf(process.platform === 'win32')('assertWriteStaysInside (real symbolic links)', () => {
  it('allows a plain file, a missing file, and a link that stays inside', async () => {
    const { workspace } = folders('inside');
    await expect(assertWriteStaysInside(path.join(workspace, '.claude', 'settings.local.json'), workspace)).resolves.toBeUndefined();
    writeFileSync(path.join(workspace, 'real.json'), '{}');
    symlinkSync(path.join(workspace, 'real.json'), path.join(workspace, '.claude', 'settings.json'));
    await expect(assertWriteStaysInside(path.join(workspace, '.claude', 'settings.json'), workspace)).resolves.toBeUndefined();
  });

  it('refuses a file, a dangling link or a folder that leads outside', async () => {
    const { workspace, outside } = folders('outside');
    writeFileSync(path.join(outside, 'shared.json'), '{}');
    symlinkSync(path.join(outside, 'shared.json'), path.join(workspace, '.claude', 'settings.local.json'));
    symlinkSync(path.join(outside, 'not-yet.json'), path.join(workspace, '.claude', 'settings.json'));
    symlinkSync(outside, path.join(workspace, 'linked'));
    for (const file of ['.claude/settings.local.json', '.claude/settings.json', 'linked/new.json']) {
      await expect(assertWriteStaysInside(path.join(workspace, file), workspace)).rejects.toBeInstanceOf(OutsideWorkspaceError);
    }
  });

  it('keeps `beads-recovery hooks install` from writing through a settings link that leaves the project', async () => {
    const { workspace, outside } = folders('cli');
    const target = path.join(outside, 'settings.local.json');
    writeFileSync(target, '{"keep":true}\n');
    symlinkSync(target, path.join(workspace, '.claude', 'settings.local.json'));
    const errors: string[] = [];
    await expect(hooksCommand(['install', '--dir', workspace], () => undefined, (text) => errors.push(text))).resolves.toBe(1);
    expect(errors.join('')).toMatch(/settings\.local\.json leads out of the project .* through a symbolic link; nothing was changed/);
    expect(readFileSync(target, 'utf8')).toBe('{"keep":true}\n');
  });
});
