// Both CLIs print RFC3339, but with any number of fractional digits (bd: up to 9, br: up to 9)
// and, in SQLite-era bd data, local offsets such as -08:00. Date.parse accepts more than RFC3339
// and its handling of long fractions is engine-specific, so the grammar is checked here.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365 * DAY;

/** Epoch milliseconds of an RFC3339 timestamp, or undefined when it is not one. */
export function parseTimestamp(text: string | undefined): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = RFC3339.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  // 60 is a leap second: RFC3339 allows it, epoch time cannot represent it.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const millis = Number((match[7] ?? '').slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (match[9]) {
    const offsetHours = Number(match[10]);
    const offsetRest = Number(match[11]);
    if (offsetHours > 23 || offsetRest > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, Math.min(second, 59), millis);
  return utc.getTime() - offsetMinutes * MINUTE;
}

/** "just now", "45m ago", "2h ago", "3d ago", "5w ago", "2y ago"; times in the future read "just now". */
export function formatAge(thenMs: number, nowMs: number): string {
  if (!Number.isFinite(thenMs) || !Number.isFinite(nowMs)) return 'time unknown';
  const elapsed = nowMs - thenMs;
  if (elapsed < MINUTE) return 'just now';
  if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)}m ago`;
  if (elapsed < DAY) return `${Math.floor(elapsed / HOUR)}h ago`;
  if (elapsed < WEEK) return `${Math.floor(elapsed / DAY)}d ago`;
  if (elapsed < YEAR) return `${Math.floor(elapsed / WEEK)}w ago`;
  return `${Math.floor(elapsed / YEAR)}y ago`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Timeouts taken from the environment stay in this range: setTimeout turns anything above 2^31-1 ms into 1 ms. */
export const TIMEOUT_RANGE_MS = { min: 100, max: 600_000 } as const;

/**
 * A timeout in milliseconds from text (an environment variable): clamped to TIMEOUT_RANGE_MS, or
 * `fallback` when the text is missing or not a positive number.
 */
export function clampTimeoutMs(text: string | undefined, fallback: number): number {
  const value = text === undefined || text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value) && value !== Number.POSITIVE_INFINITY) return fallback;
  if (value <= 0) return fallback;
  return Math.round(Math.min(TIMEOUT_RANGE_MS.max, Math.max(TIMEOUT_RANGE_MS.min, value)));
}
