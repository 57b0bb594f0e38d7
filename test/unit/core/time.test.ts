import { describe, expect, it } from 'vitest';
import { clampTimeoutMs, formatAge, parseTimestamp } from '../../../src/core/time';

describe('parseTimestamp', () => {
  it('reads UTC timestamps with any number of fractional digits', () => {
    expect(parseTimestamp('2026-04-18T16:19:12Z')).toBe(Date.UTC(2026, 3, 18, 16, 19, 12));
    expect(parseTimestamp('2026-04-22T23:29:50.189638342Z')).toBe(Date.UTC(2026, 3, 22, 23, 29, 50, 189));
    expect(parseTimestamp('2026-04-22T23:29:50.1Z')).toBe(Date.UTC(2026, 3, 22, 23, 29, 50, 100));
    expect(parseTimestamp('2026-04-22T23:29:50.999999999Z')).toBe(Date.UTC(2026, 3, 22, 23, 29, 50, 999));
  });

  it('applies local offsets such as the SQLite-era -08:00', () => {
    expect(parseTimestamp('2025-11-02T21:58:07.295058-08:00')).toBe(Date.UTC(2025, 10, 3, 5, 58, 7, 295));
    expect(parseTimestamp('2026-01-01T05:30:00+05:30')).toBe(Date.UTC(2026, 0, 1, 0, 0, 0));
    expect(parseTimestamp('2026-01-01T00:00:00+0000')).toBe(Date.UTC(2026, 0, 1));
    expect(parseTimestamp('2026-01-01t00:00:00z')).toBe(Date.UTC(2026, 0, 1));
  });

  it('agrees with Date.parse on the timestamps both understand', () => {
    for (const text of ['2024-02-29T12:00:00Z', '1999-12-31T23:59:59.5+01:00', '2026-06-24T10:11:12.123-03:00']) {
      expect(parseTimestamp(text)).toBe(Date.parse(text));
    }
  });

  it('rejects what is not RFC3339', () => {
    for (const text of ['', 'yesterday', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01', '2026-01-01T00:00:00', '2026-01-01T00:00:00+25:00', '1700000000']) {
      expect(parseTimestamp(text), text).toBeUndefined();
    }
    expect(parseTimestamp(undefined)).toBeUndefined();
  });

  it('reads a leap second as the last second of its minute', () => {
    expect(parseTimestamp('2016-12-31T23:59:60Z')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59));
  });
});

describe('formatAge', () => {
  const now = Date.UTC(2026, 1, 19, 12);
  const ago = (ms: number) => formatAge(now - ms, now);
  const MINUTE = 60_000;

  it('names the largest whole unit', () => {
    expect(ago(0)).toBe('just now');
    expect(ago(59_999)).toBe('just now');
    expect(ago(MINUTE)).toBe('1m ago');
    expect(ago(45 * MINUTE)).toBe('45m ago');
    expect(ago(60 * MINUTE)).toBe('1h ago');
    expect(ago(150 * MINUTE)).toBe('2h ago');
    expect(ago(24 * 60 * MINUTE)).toBe('1d ago');
    expect(ago(3 * 24 * 60 * MINUTE)).toBe('3d ago');
    expect(ago(7 * 24 * 60 * MINUTE)).toBe('1w ago');
    expect(ago(36 * 24 * 60 * MINUTE)).toBe('5w ago');
    expect(ago(400 * 24 * 60 * MINUTE)).toBe('1y ago');
  });

  it('reads future times (clock skew) as just now', () => {
    expect(ago(-5 * 60 * MINUTE)).toBe('just now');
  });

  it('says when the time is unknown', () => {
    expect(formatAge(Number.NaN, now)).toBe('time unknown');
  });
});

describe('clampTimeoutMs', () => {
  it('keeps a timeout from the environment in a range setTimeout can hold', () => {
    // 1e10 ms is beyond 2^31-1: setTimeout would fire after 1 ms.
    expect(clampTimeoutMs('1e10', 10_000)).toBe(600_000);
    expect(clampTimeoutMs('Infinity', 10_000)).toBe(600_000);
    expect(clampTimeoutMs('1', 10_000)).toBe(100);
    expect(clampTimeoutMs('2500', 10_000)).toBe(2500);
    expect(clampTimeoutMs('0', 10_000)).toBe(10_000);
    expect(clampTimeoutMs('-5', 10_000)).toBe(10_000);
    expect(clampTimeoutMs('ten', 10_000)).toBe(10_000);
    expect(clampTimeoutMs(' ', 10_000)).toBe(10_000);
    expect(clampTimeoutMs(undefined, 10_000)).toBe(10_000);
  });
});
