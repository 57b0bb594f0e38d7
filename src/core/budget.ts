// Fitting a document into a byte budget by dropping its least important parts first.
// A document is described by how many units of each droppable part it keeps (a list's entries,
// or 1/0 for a whole line or section); the caller renders any such selection. The drop order is
// a fixed list of steps, and the fitter takes the first prefix of that order whose rendering
// fits. Trying prefixes in order (rather than searching) keeps the result monotone: a smaller
// budget never keeps something a larger budget dropped.

/** Units kept per droppable part, keyed by the part's name. */
export type Kept = Readonly<Record<string, number>>;

/** Lower `part` one unit at a time until it keeps `downTo` units. */
export interface DropStep {
  part: string;
  downTo: number;
}

/** What the budget removed from one part. */
export interface Dropped {
  part: string;
  count: number;
}

export interface Fitted {
  text: string;
  bytes: number;
  kept: Kept;
  /** In the order the parts were first dropped. */
  dropped: Dropped[];
  /** Even the smallest selection did not fit, so the text was cut at the byte limit. */
  cut: boolean;
}

export interface FitOptions {
  budget: number;
  full: Kept;
  steps: readonly DropStep[];
  render(kept: Kept): string;
  /** The line appended when something was dropped; it counts against the budget. */
  notice(dropped: readonly Dropped[]): string;
  /** The line that ends a text cut at the byte limit, when there is room for it. */
  cutNotice: string;
}

export function fitToBudget(options: FitOptions): Fitted {
  const budget = Math.max(0, Math.floor(options.budget));
  const kept: Record<string, number> = { ...options.full };
  const order: string[] = [];
  const attempt = (): Fitted => {
    const dropped = order.map((part) => ({ part, count: (options.full[part] ?? 0) - (kept[part] ?? 0) }));
    const body = options.render(kept);
    const text = dropped.length > 0 ? `${body}\n\n${options.notice(dropped)}` : body;
    return { text, bytes: utf8Length(text), kept: { ...kept }, dropped, cut: false };
  };

  let fitted = attempt();
  for (const step of options.steps) {
    while (fitted.bytes > budget && (kept[step.part] ?? 0) > step.downTo) {
      kept[step.part] = (kept[step.part] ?? 0) - 1;
      if (!order.includes(step.part)) order.push(step.part);
      fitted = attempt();
    }
    if (fitted.bytes <= budget) return fitted;
  }
  if (fitted.bytes <= budget) return fitted;
  const text = cutWithNotice(options.render(kept), budget, options.cutNotice);
  return { ...fitted, text, bytes: utf8Length(text), cut: true };
}

/**
 * The text cut to `maxBytes`, ending with `notice`: at the last whole line that leaves room for
 * the notice, or inside the first line when not even that fits. Without room for the notice,
 * a plain cut at a character boundary.
 */
export function cutWithNotice(text: string, maxBytes: number, notice: string): string {
  const room = maxBytes - utf8Length(`\n\n${notice}`);
  if (room <= 0) return cutToUtf8Bytes(text, maxBytes);
  let kept = '';
  for (const line of text.split('\n')) {
    const candidate = kept === '' ? line : `${kept}\n${line}`;
    if (utf8Length(candidate) > room) break;
    kept = candidate;
  }
  const body = (kept.trimEnd() || cutToUtf8Bytes(text, room)).trimEnd();
  return body === '' ? notice : `${body}\n\n${notice}`;
}

/** The UTF-8 length of a string; a lone surrogate counts as the 3 bytes of U+FFFD that encoders write for it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function cutToUtf8Bytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    const pair = isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(index + 1));
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return text.slice(0, index);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
