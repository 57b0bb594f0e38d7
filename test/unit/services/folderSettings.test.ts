import { describe, expect, it } from 'vitest';
import { folderSettings } from '../../../src/services/folderSettings';

describe('folderSettings: the one reading of the environment outside VS Code', () => {
  it('takes the CLI, its executable and the timeout from the environment given', () => {
    const settings = folderSettings({ BEADS_RECOVERY_CLI: 'bd', BEADS_RECOVERY_CLI_PATH: 'bin/bd', BEADS_RECOVERY_TIMEOUT_MS: '2500' });
    expect(settings).toMatchObject({ preferred: 'bd', cliPath: 'bin/bd', timeoutMs: 2500, given: true });
  });

  it('falls back to whichever CLI the store says, no executable and a 10 s bound', () => {
    expect(folderSettings({ BEADS_RECOVERY_CLI: 'beads', BEADS_RECOVERY_CLI_PATH: '', BEADS_RECOVERY_TIMEOUT_MS: 'soon' })).toMatchObject({ preferred: 'auto', cliPath: undefined, timeoutMs: 10_000 });
  });

  it('clamps a timeout past the longest bound', () => {
    expect(folderSettings({ BEADS_RECOVERY_TIMEOUT_MS: '99999999' }).timeoutMs).toBe(600_000);
  });

  it('reads the process environment when none is given, and says so', () => {
    const settings = folderSettings();
    expect(settings.env).toBe(process.env);
    expect(settings.given).toBe(false);
  });
});
