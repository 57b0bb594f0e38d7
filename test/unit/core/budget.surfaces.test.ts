import { describe, expect, it } from 'vitest';
import { hookSurfaceBudget } from '../../../src/core/agents';
import { DEFAULT_SURFACE_BUDGET } from '../../../src/core/agents/profile';

describe('budget by surface', () => {
  it("gives each agent's hook what that agent accepts, below its stated limit, and cites it", () => {
    // Claude Code caps hook output at 10,000 characters; a UTF-8 byte budget under that cannot exceed it.
    expect(hookSurfaceBudget('claude').bytes).toBeLessThan(10_000);
    expect(hookSurfaceBudget('claude').bytes).toBeGreaterThan(DEFAULT_SURFACE_BUDGET.bytes);
    expect(hookSurfaceBudget('claude').source).toMatch(/10,000 characters/);
    // Codex: about 2,500 tokens, counted as bytes / 4.
    expect(hookSurfaceBudget('codex').bytes).toBeLessThan(2_500 * 4);
    expect(hookSurfaceBudget('codex').source).toMatch(/2,500 tokens/);
  });

  it('keeps the 2 KB default where no limit is stated', () => {
    for (const agent of ['copilot', 'cursor', 'gemini', 'copilot-cli', 'opencode', 'unknown']) expect(hookSurfaceBudget(agent)).toEqual(DEFAULT_SURFACE_BUDGET);
    expect(DEFAULT_SURFACE_BUDGET.bytes).toBe(2048);
  });
});
