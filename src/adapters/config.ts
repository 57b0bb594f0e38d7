import * as vscode from 'vscode';

/** Every setting the extension reads, as one typed object (rust-analyzer's `Config` pattern). */
export interface Settings {
  cli: 'auto' | 'bd' | 'br';
  /** Only ever the user's (machine) value; never read from a workspace. */
  cliPath: string | undefined;
  cliTimeoutMs: number;
  recoveryBudgetBytes: number;
}

export const SECTION = 'beadsRecovery';

export function readSettings(scope?: vscode.Uri): Settings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  // `cliPath` is machine-scoped in package.json, so VS Code already ignores workspace values;
  // reading the global value explicitly keeps that true even if the scope is ever changed.
  const cliPath = config.inspect<string>('cliPath')?.globalValue?.trim();
  return {
    cli: config.get<'auto' | 'bd' | 'br'>('cli', 'auto'),
    cliPath: cliPath ? cliPath : undefined,
    cliTimeoutMs: clamp(config.get<number>('cliTimeoutMs', 10_000), 1_000, 600_000),
    recoveryBudgetBytes: clamp(config.get<number>('recoveryBudgetBytes', 2048), 256, 65_536),
  };
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}

export function onSettingsChanged(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration(SECTION)) listener();
  });
}
