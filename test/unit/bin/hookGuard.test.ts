import { describe, expect, it } from 'vitest';
import { guardHook, hookDeadlineMs, HookDeadlineError } from '../../../src/bin/hookGuard';

describe('guardHook', () => {
  it('answers with the full answer when it comes in time', async () => {
    const warnings: string[] = [];
    const answer = await guardHook({ answer: async () => 'full', fallback: async () => 'fallback', last: () => 'last' }, { deadlineMs: 1000, warn: (line) => warnings.push(line) });
    expect(answer).toBe('full');
    expect(warnings).toEqual([]);
  });

  it('falls back when the answer fails, and says why', async () => {
    const warnings: string[] = [];
    const answer = await guardHook(
      {
        answer: async () => {
          throw new Error('EISDIR: ledger.json is a directory');
        },
        fallback: async (reason) => `fallback after ${reason}`,
        last: () => 'last',
      },
      { deadlineMs: 1000, warn: (line) => warnings.push(line) },
    );
    expect(answer).toBe('fallback after EISDIR: ledger.json is a directory');
    expect(warnings).toEqual(['EISDIR: ledger.json is a directory']);
  });

  it('stops waiting at the deadline even for work that ignores its signal, and aborts that signal', async () => {
    let seen: AbortSignal | undefined;
    const started = Date.now();
    const answer = await guardHook(
      {
        answer: (signal) => {
          seen = signal;
          return new Promise<string>(() => undefined);
        },
        fallback: async () => 'from the JSONL',
        last: () => 'last',
      },
      { deadlineMs: 1000, warn: () => undefined },
    );
    expect(answer).toBe('from the JSONL');
    // The deadline plus what a busy machine adds to a timer (the suite runs beside busy loops).
    expect(Date.now() - started).toBeLessThan(1000 + 1500);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBeInstanceOf(HookDeadlineError);
  });

  it('gives the last answer when the fallback fails or overruns too, within the deadline', async () => {
    const warnings: string[] = [];
    const started = Date.now();
    const answer = await guardHook(
      { answer: () => new Promise<string>(() => undefined), fallback: () => new Promise<string>(() => undefined), last: (reason) => `nothing: ${reason}` },
      { deadlineMs: 1000, warn: (line) => warnings.push(line) },
    );
    expect(Date.now() - started).toBeLessThan(1000 + 1500);
    expect(answer).toMatch(/^nothing: the hook ran out of time/);
    expect(warnings).toHaveLength(2);
  });
});

describe('hookDeadlineMs', () => {
  it('reads the environment, clamped, with a default below the 30 s our installers give hooks', () => {
    expect(hookDeadlineMs({})).toBe(20_000);
    expect(hookDeadlineMs({ BEADS_RECOVERY_HOOK_DEADLINE_MS: '5000' })).toBe(5000);
    expect(hookDeadlineMs({ BEADS_RECOVERY_HOOK_DEADLINE_MS: '1e10' })).toBe(600_000);
    expect(hookDeadlineMs({ BEADS_RECOVERY_HOOK_DEADLINE_MS: 'soon' })).toBe(20_000);
  });
});
