// The one redaction step (issue 29): every checkpoint and close comment before it reaches beads,
// and every recovery context and sidebar before an agent or a person reads it, passes
// `redactText`. Vendors' token shapes come from secretlint's recommended preset (maintained, one
// rule per vendor, each with its documented examples); what such sets miss in transcripts and the
// personal paths come from src/core/redact.ts.
//
// Why secretlint and how it is loaded: its core and preset bundle to about 80 kB with no further
// dependency but `debug`; evaluating them costs a process some 15 ms and the first pass over a
// checkpoint some tens of ms more while the rules compile (`npm run bench hooks` prints both). The
// hooks bundle it, but it is imported only on first use, so a hook outside a beads project, or one
// that writes and shows nothing, never evaluates it.

import { homedir } from 'node:os';
import type { Section } from '../core/recovery';
import type { Issue } from '../core/model';
import type { ProjectSnapshot } from './snapshot';
import { addCounts, applyRedactions, personalPaths, transcriptSecrets, type MaskedCounts, type PathPlaces, type Redaction } from '../core/redact';

export { describeMasked, type MaskedCounts } from '../core/redact';

export interface Redacted {
  text: string;
  masked: MaskedCounts;
}

/** What secretlint's recommended preset reports, by message id, as a masked value reads it. */
const SECRETLINT_LABELS: Readonly<Record<string, string>> = {
  ANTHROPIC_API_KEY: 'Anthropic API key',
  AWSAccessKeyID: 'AWS access key id',
  AWSAccountID: 'AWS account id',
  AWSSecretAccessKey: 'AWS secret access key',
  BasicAuth: 'URL credentials',
  DATABRICKS_PERSONAL_ACCESS_TOKEN: 'Databricks token',
  DOCKER_PERSONAL_ACCESS_TOKEN: 'Docker token',
  FIGMA_PERSONAL_ACCESS_TOKEN: 'Figma token',
  GITHUB_TOKEN: 'GitHub token',
  GITLAB_PERSONAL_ACCESS_TOKEN: 'GitLab token',
  GRAFANA_CLOUD_API_TOKEN: 'Grafana token',
  GRAFANA_SERVICE_ACCOUNT_TOKEN: 'Grafana token',
  GROQ_API_KEY: 'Groq API key',
  HASHICORP_VAULT_BATCH_TOKEN: 'Vault token',
  HASHICORP_VAULT_RECOVERY_TOKEN: 'Vault token',
  HASHICORP_VAULT_SERVICE_TOKEN: 'Vault token',
  HUGGINGFACE_USER_ACCESS_TOKEN: 'Hugging Face token',
  IncomingWebhook: 'Slack webhook',
  LINEAR_API_TOKEN: 'Linear API key',
  MongoDBConnection: 'database URL credentials',
  MySQLConnection: 'database URL credentials',
  NOTION_INTEGRATION_TOKEN: 'Notion token',
  NPM_ACCESS_TOKEN: 'npm token',
  Npmrc_authToken: 'npm token',
  OPENAI_TOKEN: 'OpenAI API key',
  OPS_TOKEN: '1Password token',
  PackageJSON_xOauthToken: 'OAuth token',
  PostgreSQLConnection: 'database URL credentials',
  PrivateKey: 'private key',
  PrivateKeyJSON: 'private key',
  PrivateKeyP12: 'private key',
  SENDGRID_KEY: 'SendGrid key',
  SHOPIFY_KEY: 'Shopify token',
  SLACK_TOKEN: 'Slack token',
  VERCEL_AI_GATEWAY_API_KEY: 'Vercel token',
  VERCEL_APP_ACCESS_TOKEN: 'Vercel token',
  VERCEL_APP_REFRESH_TOKEN: 'Vercel token',
  VERCEL_INTEGRATION_TOKEN: 'Vercel token',
  VERCEL_PERSONAL_ACCESS_TOKEN: 'Vercel token',
};

/**
 * What every rule of secretlint's recommended preset needs to find anything, read from each rule's
 * patterns (a superset: each entry is a part every match of that rule contains). A text with none
 * of them has nothing for secretlint, so it is neither loaded nor run for it: its first use costs a
 * process tens of ms while its rules compile (`npm run bench hooks`), and most blocks hold no
 * secret. The rules, by id, are listed in PRESCANNED_RULES; a preset with another rule fails
 * test/unit/services/redaction.test.ts until its part is added here.
 */
const SECRETLINT_CANDIDATE = new RegExp(
  [
    // aws: access key ids
    'A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA',
    // privatekey, gcp (a service account's JSON holds its private key)
    'PRIVATE KEY',
    // npm: tokens, an .npmrc's token, package.json's x-oauth-basic URL
    'npm_|_authToken=',
    // slack: tokens (its webhook URL is below, any case)
    'xox[bpaor]-|xapp-',
    // basicauth: scheme://user:password@host
    '://[-\\w]{1,256}:',
    // openai (new keys by their kind, older ones by the part every one holds), anthropic
    'sk-(?:proj|svcacct|admin|ant)-|T3BlbkFJ',
    // groq, huggingface, linear, notion, sendgrid, shopify, github, gitlab, grafana, 1password
    'gsk_|hf_|lin_api_|ntn_|SG\\.|shp(?:pa|ca|at|ss)_|gh[pousr]_|github_pat_|glpat-|glc_|glsa_|ops_',
    // hashicorp-vault, vercel, databricks, docker, figma
    'hv[sbr]\\.|vc[pciark]_|dapi|dckr_pat_|figd_',
  ].join('|'),
);
/** The rules whose patterns are case-insensitive in part: aws (the names beside a secret), slack's webhook, database-connection-string, npm's x-oauth-basic. */
const SECRETLINT_CANDIDATE_ANY_CASE = /secret_?access_?key|account_?(?:id)?["']?\s*(?::|=>|=)|hooks\.slack\.com|mongodb|mysql|postgres|x-oauth-basic/i;

/** The preset's rules the candidate parts above were read from. */
export const PRESCANNED_RULES = [
  '1password', 'anthropic', 'aws', 'basicauth', 'database-connection-string', 'databricks', 'docker', 'figma', 'filter-comments', 'gcp', 'github', 'gitlab',
  'grafana', 'groq', 'hashicorp-vault', 'huggingface', 'linear', 'notion', 'npm', 'openai', 'privatekey', 'sendgrid', 'shopify', 'slack', 'vercel',
].map((name) => `@secretlint/secretlint-rule-${name}`);

/** Whether any rule of the preset could find something in `text` (see SECRETLINT_CANDIDATE). */
export function mayHoldVendorSecret(text: string): boolean {
  return SECRETLINT_CANDIDATE.test(text) || SECRETLINT_CANDIDATE_ANY_CASE.test(text);
}

type Lint = (text: string) => Promise<Redaction[]>;
let secretlint: Promise<Lint> | undefined;

/** secretlint's recommended preset, loaded on first use. */
function loadSecretlint(): Promise<Lint> {
  secretlint ??= (async () => {
    const [{ lintSource }, { creator }] = await Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]);
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] };
    return async (text: string) => {
      // A `secretlint-disable` comment in a transcript is text the session read or printed: it must
      // not switch the rules off for what follows it (the preset's comment filter honours it, and
      // disabling that filter in the preset's config does not take). Same length: ranges hold.
      const content = text.replace(/secretlint-(?=disable|enable)/gi, (word) => '_'.repeat(word.length));
      const result = await lintSource({ source: { content, filePath: 'thread.txt', ext: '.txt', contentType: 'text' }, options: { config } });
      return result.messages.map((message) => ({
        start: message.range[0],
        end: message.range[1],
        label: SECRETLINT_LABELS[message.messageId] ?? `secret (${message.ruleId.replace(/^@secretlint\/secretlint-rule-/, '')})`,
      }));
    };
  })();
  return secretlint;
}

/** The places personal paths are made relative to: the session's folder, and this user's home. */
export function pathPlaces(folder: string | undefined): PathPlaces {
  return { folder, home: homedir() };
}

/**
 * `text` as it may leave the machine: every secret masked (`[redacted: GitHub token]`) and every
 * personal path relative to `places.folder` or `~`. Redacting twice changes nothing.
 */
export async function redactText(text: string, places: PathPlaces): Promise<Redacted> {
  if (text === '') return { text, masked: {} };
  const vendors = mayHoldVendorSecret(text) ? await (await loadSecretlint())(text) : [];
  // secretlint's rules first: they name the vendor; then the transcript shapes, then paths.
  const redactions = [...vendors, ...transcriptSecrets(text), ...personalPaths(text, places)];
  return applyRedactions(text, redactions);
}

/** `redactText` of each, with the counts added up. */
export async function redactTexts(texts: readonly string[], places: PathPlaces): Promise<{ texts: string[]; masked: MaskedCounts }> {
  const results = await Promise.all(texts.map((text) => redactText(text, places)));
  return { texts: results.map((result) => result.text), masked: addCounts(...results.map((result) => result.masked)) };
}

/** The texts of an issue a view shows that anyone with write access to the tracker chose. */
const ISSUE_TEXTS = ['title', 'description', 'acceptanceCriteria', 'notes', 'design', 'agentContext'] as const;

/** Texts seen before, as redacted: a view refreshes the same comments again and again. */
const seen = new Map<string, Promise<Redacted>>();
const SEEN_LIMIT = 2000;

function redactSeen(text: string, places: PathPlaces): Promise<Redacted> {
  const key = `${places.folder ?? ''}\0${text}`;
  let redacted = seen.get(key);
  if (!redacted) {
    if (seen.size >= SEEN_LIMIT) seen.clear();
    redacted = redactText(text, places);
    seen.set(key, redacted);
  }
  return redacted;
}

/**
 * Issues as a view may show them (the sidebar's details and its lists): comments and the issue's
 * own texts redacted. Comments written by hand with `bd comments add`, or by an older version, and
 * titles anyone typed never passed the write path's redaction.
 */
export async function redactIssues<T extends { comments?: readonly { text: string }[] } & Partial<Record<(typeof ISSUE_TEXTS)[number], string>>>(issues: readonly T[], folder: string): Promise<T[]> {
  const places = pathPlaces(folder);
  return Promise.all(
    issues.map(async (issue) => {
      const copy = { ...issue };
      if (issue.comments) copy.comments = await Promise.all(issue.comments.map(async (comment) => ({ ...comment, text: (await redactSeen(comment.text, places)).text })));
      for (const field of ISSUE_TEXTS) {
        const text = issue[field];
        if (typeof text === 'string') (copy as Record<string, unknown>)[field] = (await redactSeen(text, places)).text;
      }
      return copy;
    }),
  );
}

/** The snapshot as the view shows it: the details and the lists' issues (their titles too) redacted. */
export async function redactSnapshot(snapshot: ProjectSnapshot, root: string): Promise<ProjectSnapshot> {
  const redacted = async <T extends Issue>(section: Section<T[]>): Promise<Section<T[]>> => (section.ok ? { ok: true, value: await redactIssues(section.value, root) } : section);
  const [inProgress, ready, details] = await Promise.all([redacted(snapshot.inProgress), redacted(snapshot.ready), redacted(snapshot.details)]);
  return { ...snapshot, inProgress, ready, details };
}
