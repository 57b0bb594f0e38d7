// Records keyed by ids that came from outside (issue ids, session ids, file paths): an id such as
// `constructor`, `toString` or `__proto__` is data. These records have no prototype for such an
// id to find something in, and a lookup reads only a record's own entries, so a record built
// elsewhere (JSON.parse, a test's literal) is safe to ask too.

/** A record without a prototype, holding `entries`. */
export function idRecord<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  for (const [id, value] of entries) record[id] = value;
  return record;
}

/** The entry of `id` in `record`, never one its prototype holds. */
export function entryOf<T>(record: Readonly<Record<string, T>>, id: string): T | undefined {
  return Object.hasOwn(record, id) ? record[id] : undefined;
}

/** A copy of `record` with `id` set to `value` (a record without a prototype). */
export function withEntry<T>(record: Readonly<Record<string, T>>, id: string, value: T): Record<string, T> {
  const next = idRecord(Object.entries(record));
  next[id] = value;
  return next;
}
