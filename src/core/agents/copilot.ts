import { DEFAULT_SURFACE_BUDGET, type AgentProfile } from './profile';

// VS Code's own agent hooks (Copilot agent mode) and Copilot CLI, which read one hook file.
export const copilot: AgentProfile<'copilot'> = {
  id: 'copilot',
  name: 'Copilot',
  label: 'GitHub Copilot (VS Code agent hooks, Copilot CLI)',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  mcp: { file: '.vscode/mcp.json', kind: 'json', container: 'servers', typed: true },
  // bd's copilot hook prints `bd prime` as plain text, which reaches neither reader of the file:
  // VS Code parses a hook's stdout as JSON, and Copilot CLI took only a top-level
  // `additionalContext` in the real-agent suite. Our block keeps the rules there.
  primeLocations: [],
  // Ours is .github/hooks/beads-recovery.json; bd setup writes its own file in the same folder.
  configFiles: ['.github/hooks/*.json'],
};
