// What may leave the machine (issue 29). Checkpoints are beads comments, and teams push
// `.beads/issues.jsonl`, often to a public repository: whatever a session typed, ran or printed can
// reach it through the thread. This is the pure half of the one redaction step every write and
// every context passes (src/services/redaction.ts runs it, with secretlint's recommended rules for
// the vendors' token shapes): the shapes those rule sets miss in transcripts, personal paths, and
// how a masked value reads. A masked value reads `[redacted: GitHub token]`, so the sentence
// around it stays readable; nothing but the value is touched.

/** One stretch of text to replace: a secret (`[redacted: label]`) or a personal path (its replacement). */
export interface Redaction {
  start: number;
  end: number;
  /** What it is, for the report (counts per label, never values). */
  label: string;
  /** The text that takes its place; by default `[redacted: label]`. */
  replacement?: string;
}

/** How many values of each kind were masked: `{ 'GitHub token': 2, 'personal path': 1 }`. */
export type MaskedCounts = Readonly<Record<string, number>>;

export const PERSONAL_PATH = 'personal path';

/** The marker a masked secret leaves; no rule here matches it, so redacting twice changes nothing. */
export function maskOf(label: string): string {
  return `[redacted: ${label}]`;
}

/** Secrets by fixed shape that secretlint's recommended preset has no rule for. */
const VENDOR_SHAPES: readonly { label: string; pattern: RegExp }[] = [
  { label: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  // The whole URL is the secret; secretlint knows it whole, this also when the thread cut it short.
  { label: 'Slack webhook', pattern: /\bhttps?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]*\u2026?/g },
  { label: 'Stripe key', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b/g },
  { label: 'Stripe webhook secret', pattern: /\bwhsec_[0-9A-Za-z]{24,}\b/g },
  { label: 'PyPI token', pattern: /\bpypi-AgE[A-Za-z0-9_-]{40,}/g },
  { label: 'DigitalOcean token', pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { label: 'Twilio API key', pattern: /\bSK[0-9a-f]{32}\b/g },
  { label: 'Mailgun key', pattern: /\bkey-[0-9a-z]{32}\b/g },
  { label: 'Telegram bot token', pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
  { label: 'Azure storage key', pattern: /\bAccountKey=[A-Za-z0-9+/]{40,}={0,2}/g },
  { label: 'AWS access key id', pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b/g },
  { label: 'JWT', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
];

// `Authorization: Bearer abc…`, `-H "authorization: token abc…"`, `"Authorization": "Basic abc…"`:
// the scheme stays, the credential goes.
const AUTHORIZATION = /\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|bot|negotiate|apikey)\s+)?([^\s"',;}\]]{4,})/dgi;
const BEARER = /\bbearer\s+([A-Za-z0-9\-._~+/]{12,}=*)/dgi;
// `https://user:pass@host`, `postgres://app:pw@db/…`; and `https://<token>@github.com`.
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]*:\/\/([^\s:/?#@"'<>]+:[^\s/?#@"'<>]+)@/dgi;
const URL_TOKEN = /\b[a-z][a-z0-9+.-]*:\/\/([A-Za-z0-9_-]{20,})@/dgi;
// A name with a secret-like word as one of its parts (`API_KEY`, `github-token`, `authToken`,
// `PGPASSWORD`), then `=` or `:`, then the value: env dumps, commands, YAML, JSON; and such a
// command-line flag. The name is judged part by part (isSecretName), not by one pattern: only
// whole parts count, so `monkey`, `tokenizer` or `max_tokens` are no secret.
// In a lookahead, so a name that is no secret does not swallow one that is (`env: TOKEN=…`).
const ASSIGNMENT = /(?<![A-Za-z0-9_.-])(?=([A-Za-z_][A-Za-z0-9_.-]*)(["']?[ \t]*(=|:)[ \t]*["']?)([^\s"'`;&|,)}\]]+))/dg;
const FLAG = /(?<![A-Za-z0-9-])--([a-z0-9][a-z0-9-]*)(?:=|[ \t]+)["']?([^\s"'`;&|]+)/dg;
const SECRET_PARTS = new Set(['apikey', 'secret', 'token', 'password', 'passwd', 'pwd', 'pass', 'credential', 'credentials', 'key']);
const GLUED_SECRET = /^[A-Z0-9_]*(?:PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY)$/;

function isSecretName(name: string): boolean {
  if (GLUED_SECRET.test(name)) return true;
  return name
    .split(/[_.-]+|(?<=[a-z0-9])(?=[A-Z])/)
    .some((part) => SECRET_PARTS.has(part.toLowerCase()));
}
// A long random-looking string just after a secret-like word: "the key is 9xQ…", "token 7fG…".
const NEAR_SECRET_WORD = /\b(?:secrets?|tokens?|keys?|passwords?|passwd|credentials?|apikey|api key)\b(?:\s*(?:is|was|=|:|of|to|for)\s*|\s+|["'`\s:=]{1,3})["'`]?([A-Za-z0-9+/_-]{20,}={0,2})/dgi;

// A token the thread cut short (`truncate` ends it with an ellipsis) no longer has its vendor's full
// shape: its known prefix, or its randomness, still gives it away.
const CUT_SHORT = /(?<![A-Za-z0-9_+/=.-])([A-Za-z0-9_+/=.-]{12,}\u2026)/dg;
const TOKEN_PREFIX = /^(?:gh[pousr]_|github_pat_|glpat-|glsa_|xox[abposr]-|xapp-|sk-|sk_(?:live|test)_|rk_(?:live|test)_|whsec_|A3T|AKIA|ASIA|AIza|npm_|hf_|eyJ|pypi-|do[opr]_v1_|SG\.|shp(?:at|ss|ca|pa)_|lin_api_|ops_|figd_|dckr_pat_|gsk_|hv[sbr]\.|dapi|vcp_|ntn_|secret_)/;

/** Values that name a secret without being one: variables, placeholders, what was masked already. */
function isPlaceholder(value: string): boolean {
  return (
    /^(?:\$|%|<|\{\{|\[redacted|\*{3}|x{3,}$|\.{3}|process\.env|os\.environ|env\.|secrets\.|true$|false$|null$|undefined$|none$|required$|optional$)/i.test(value) ||
    // Small numbers are counts and sizes (`max_token=4096`), not credentials.
    /^\d{1,7}$/.test(value)
  );
}

/** Bits per character: how random a string looks. */
function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function looksRandom(value: string): boolean {
  return /\d/.test(value) && /[A-Za-z]/.test(value) && entropy(value) >= 3.5;
}

function labelOfName(name: string): string {
  const lower = name.toLowerCase();
  if (/passw|pwd|pass(?![a-z])/.test(lower)) return 'password';
  if (lower.includes('token')) return 'token';
  if (lower.includes('secret')) return 'secret';
  if (lower.includes('credential')) return 'credentials';
  return 'key';
}

function groupRange(match: RegExpExecArray, group: number): [number, number] | undefined {
  return match.indices?.[group];
}

/**
 * The secrets in `text` that secretlint's recommended preset has no rule for, as they appear in
 * transcripts: vendor shapes it lacks, `Authorization:` and `Bearer` values, `KEY=`/`TOKEN=`/
 * `SECRET=`/`PASSWORD=` assignments and flags, credentials in URLs, private key blocks, JWTs, and
 * long random strings just after a secret-like word. Only the value is covered, never its name.
 */
export function transcriptSecrets(text: string): Redaction[] {
  const found: Redaction[] = [...privateKeyBlocks(text)];
  for (const { label, pattern } of VENDOR_SHAPES) {
    for (const match of text.matchAll(pattern)) found.push({ start: match.index, end: match.index + match[0].length, label });
  }
  const valueOf = (pattern: RegExp, group: number, label: (match: RegExpExecArray) => string | undefined) => {
    for (const match of text.matchAll(pattern)) {
      const range = groupRange(match, group);
      const value = match[group];
      const name = label(match);
      if (!range || value === undefined || name === undefined || isPlaceholder(value)) continue;
      found.push({ start: range[0], end: range[1], label: name });
    }
  };
  valueOf(AUTHORIZATION, 1, () => 'authorization header');
  valueOf(BEARER, 1, () => 'bearer token');
  valueOf(URL_CREDENTIALS, 1, () => 'URL credentials');
  valueOf(URL_TOKEN, 1, () => 'URL credentials');
  valueOf(ASSIGNMENT, 4, (match) => {
    const name = match[1] ?? '';
    const value = match[4] ?? '';
    if (!isSecretName(name)) return undefined;
    const label = labelOfName(name);
    // `key: value` is prose as often as config: after a colon, only what looks like a credential.
    if (match[3] === ':' && label !== 'password' && !(value.length >= 8 && /\d/.test(value)) && !/["']/.test(match[2] ?? '')) return undefined;
    if (label !== 'password' && value.length < 4) return undefined;
    return label;
  });
  valueOf(FLAG, 2, (match) => (isSecretName(match[1] ?? '') ? labelOfName(match[1] ?? '') : undefined));
  valueOf(CUT_SHORT, 1, (match) => {
    // A URL's or a path's last part is judged alone (`https://<token>@github.com` cut before its `@`).
    const token = (match[1] ?? '').slice(0, -1).split('/').at(-1) ?? '';
    return TOKEN_PREFIX.test(token) || (token.length >= 12 && !token.includes('.') && looksRandom(token)) ? 'secret (cut short)' : undefined;
  });
  valueOf(NEAR_SECRET_WORD, 1, (match) => (looksRandom(match[1] ?? '') ? 'secret-like string' : undefined));
  return found;
}

// Also a header the thread cut short ("-----BEGIN RSA PRIVATE K…"): the key's own first line, its body gone.
const PRIVATE_KEY_BEGIN = /-----BEGIN(?:[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Z0-9 -]*…)/g;
const PRIVATE_KEY_END = /-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
// A block cut short (a thread line ends mid-key) runs on over its base64 body, escaped line breaks included.
const KEY_BODY = /[A-Za-z0-9+/=\r\n\\:,-]*/y;

function privateKeyBlocks(text: string): Redaction[] {
  const blocks: Redaction[] = [];
  let covered = 0;
  let noEndAfter = Infinity;
  for (const begin of text.matchAll(PRIVATE_KEY_BEGIN)) {
    const start = begin.index;
    // Inside the block before it (a key's header repeated in its own text): already masked.
    if (start < covered) continue;
    const after = start + begin[0].length;
    PRIVATE_KEY_END.lastIndex = after;
    const end = after < noEndAfter ? PRIVATE_KEY_END.exec(text) : null;
    if (!end) noEndAfter = Math.min(noEndAfter, after);
    KEY_BODY.lastIndex = after;
    const stop = end ? end.index + end[0].length : after + (KEY_BODY.exec(text)?.[0].length ?? 0);
    blocks.push({ start, end: stop, label: 'private key' });
    covered = stop;
  }
  return blocks;
}

/** Where the session works and whose machine it is: what a personal path is made relative to. */
export interface PathPlaces {
  /** The session's folder (the project's root): paths inside it become relative to it. */
  folder?: string;
  /** The user's home folder: paths inside it become `~/…`. */
  home?: string;
}

// A home folder on Linux (`/home/NAME`, `/root`), macOS (`/Users/NAME`) or Windows
// (`C:\Users\NAME`, also with the backslashes doubled as in JSON), and what follows it.
const HOME_PATH = /(?<![\w.~/\\-])(?:\/(?:home|Users)\/[^/\s"'`:;,)<>]+|\/root(?=[/\s"'`:;,)<>]|$)|[A-Za-z]:(?:\\{1,2}|\/)Users(?:\\{1,2}|\/)[^\\/\s"'`:;,)<>]+)((?:(?:\\{1,2}|\/)[^\\/\s"'`:;,)<>]*)*)/g;

/**
 * Absolute paths under a home folder, made relative to the session's folder when they are inside
 * it (`src/parse.ts`), else to the home folder (`~/notes/todo.md`): the user's name goes.
 */
export function personalPaths(text: string, places: PathPlaces): Redaction[] {
  const found: Redaction[] = [];
  const folder = places.folder ? comparable(places.folder) : undefined;
  const home = places.home ? comparable(places.home) : undefined;
  for (const match of text.matchAll(HOME_PATH)) {
    const whole = match[0];
    const full = comparable(whole);
    let replacement: string;
    if (folder && (full === folder || full.startsWith(`${folder}/`))) {
      replacement = partsAfter(whole, folder) || '.';
    } else if (home && (full === home || full.startsWith(`${home}/`))) {
      const rest = partsAfter(whole, home);
      replacement = rest === '' ? '~' : `~${separatorOf(whole)}${rest}`;
    } else {
      // Someone else's home, or a home this machine does not have: its owner's name goes all the same.
      replacement = `~${match[1] ?? ''}`;
    }
    found.push({ start: match.index, end: match.index + whole.length, label: PERSONAL_PATH, replacement });
  }
  return found;
}

const SEPARATOR = /\\{1,2}|\//;

function separatorOf(path: string): string {
  return SEPARATOR.exec(path)?.[0] ?? '/';
}

/** The parts of `path` below `base` (a comparable path it is inside), joined by the path's own separator. */
function partsAfter(path: string, base: string): string {
  return path.split(SEPARATOR).slice(base.split('/').length).join(separatorOf(path));
}

/** A path as compared: one forward slash between parts, no trailing slash, Windows' drive and case folded. */
function comparable(path: string): string {
  const slashes = path.replace(/\\{1,2}/g, '/').replace(/\/+$/, '');
  return /^[A-Za-z]:\//.test(slashes) ? slashes.toLowerCase() : slashes;
}

/**
 * Applies the redactions to `text`. Overlapping ones become one, under the label of the one that
 * comes first in `redactions` (the caller lists the most specific rules first), and count once.
 */
export function applyRedactions(text: string, redactions: readonly Redaction[]): { text: string; masked: MaskedCounts } {
  const ordered = redactions
    .map((redaction, rank) => ({ ...redaction, rank }))
    .filter((redaction) => redaction.end > redaction.start)
    .sort((a, b) => a.start - b.start || a.rank - b.rank);
  const merged: (Redaction & { rank: number })[] = [];
  for (const redaction of ordered) {
    const last = merged.at(-1);
    if (!last || redaction.start >= last.end) {
      merged.push(redaction);
      continue;
    }
    // A secret wins over a path (a path replaced in part would keep the rest of the secret);
    // between two of a kind, the earlier-listed rule names it.
    const isSecret = (one: Redaction) => one.replacement === undefined;
    const leader = isSecret(redaction) !== isSecret(last) ? (isSecret(redaction) ? redaction : last) : redaction.rank < last.rank ? redaction : last;
    merged[merged.length - 1] = { ...leader, start: last.start, end: Math.max(last.end, redaction.end) };
  }
  const counts: Record<string, number> = {};
  let out = '';
  let at = 0;
  for (const redaction of merged) {
    out += text.slice(at, redaction.start) + (redaction.replacement ?? maskOf(redaction.label));
    at = redaction.end;
    counts[redaction.label] = (counts[redaction.label] ?? 0) + 1;
  }
  return { text: out + text.slice(at), masked: counts };
}

export function addCounts(...all: readonly MaskedCounts[]): MaskedCounts {
  const sum: Record<string, number> = {};
  for (const counts of all) for (const [label, count] of Object.entries(counts)) sum[label] = (sum[label] ?? 0) + count;
  return sum;
}

/**
 * What was masked, for stderr, the log and a notification: counts and kinds, never a value.
 * Undefined when nothing was. "masked 3 secrets (2 GitHub token, 1 password) and 1 personal path".
 */
export function describeMasked(counts: MaskedCounts): string | undefined {
  const secrets = Object.entries(counts).filter(([label]) => label !== PERSONAL_PATH).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const secretTotal = secrets.reduce((sum, [, count]) => sum + count, 0);
  const paths = counts[PERSONAL_PATH] ?? 0;
  const parts: string[] = [];
  if (secretTotal > 0) parts.push(`${secretTotal} secret${secretTotal === 1 ? '' : 's'} (${secrets.map(([label, count]) => `${count} ${label}`).join(', ')})`);
  if (paths > 0) parts.push(`${paths} personal path${paths === 1 ? '' : 's'} made relative`);
  return parts.length === 0 ? undefined : `masked ${parts.join(' and ')}`;
}
