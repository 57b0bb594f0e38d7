// The block "Beads: Add Agent Instructions…" writes into AGENTS.md, which Codex, Copilot and
// other agents read at the start of every session. It is static on purpose: AGENTS.md is
// committed and read by agents that may run long after it was written, so it teaches where the
// live context comes from instead of holding any of it. Our markers keep it apart from the rest
// of the file (and from the workflow section `br agents --add` manages), so writing it again
// replaces it instead of adding a copy.

import type { Dialect } from './model';

export const AGENTS_BLOCK_BEGIN = '<!-- beads-recovery:begin -->';
export const AGENTS_BLOCK_END = '<!-- beads-recovery:end -->';

export function agentsBlock(cli: Dialect): string {
  return [
    AGENTS_BLOCK_BEGIN,
    '## Recovering work context (beads)',
    '',
    `Work in this repository is tracked in beads (\`${cli}\`). What you were doing does not survive a restart,`,
    'a new chat or a compaction of the conversation; the in-progress beads issue does.',
    '',
    '- At the start of work, after a restart, and whenever the conversation was compacted or summarized,',
    '  get the recovery context before anything else:',
    '  - in VS Code chat, call the `beads_getRecoveryContext` tool (`#beadsRecovery`);',
    '  - with MCP, call `get_recovery_context` of the `beads-recovery` server (`beads-recovery mcp`; its',
    '    `recover` prompt and `beads-recovery://context` resource hold the same text);',
    '  - in a terminal, run `beads-recovery context` when it is installed, else',
    `    \`${cli} list --status in_progress --json\` and \`${cli} show -- <id>\`.`,
    '- Checkpoint when a piece of work is done and before you stop: the `beads_checkpoint` tool or the MCP',
    '  `write_checkpoint` tool with a one-line summary, `beads-recovery checkpoint --message "<summary>"`, or',
    `  \`${cli} comments add -- <id> "Checkpoint: <what is done, what is next>"\`.`,
    '- Mention the issue id in commit messages.',
    AGENTS_BLOCK_END,
  ].join('\n');
}

export type AgentsEdit = { ok: true; text: string; changed: boolean } | { ok: false; error: string };

/**
 * AGENTS.md with our block in it: replaced between the markers when it is there, appended after
 * a blank line when it is not, the whole file when there was none. Line endings follow the file.
 */
export function upsertAgentsBlock(existing: string | undefined, cli: Dialect): AgentsEdit {
  const text = existing ?? '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = agentsBlock(cli).replace(/\n/g, eol);
  const begins = text.split(AGENTS_BLOCK_BEGIN).length - 1;
  const ends = text.split(AGENTS_BLOCK_END).length - 1;
  const begin = text.indexOf(AGENTS_BLOCK_BEGIN);
  const end = text.indexOf(AGENTS_BLOCK_END);
  if (begins !== ends || begins > 1 || end < begin) {
    return { ok: false, error: `the ${AGENTS_BLOCK_BEGIN} and ${AGENTS_BLOCK_END} markers are unpaired or repeated; fix them by hand` };
  }
  let next: string;
  if (begin !== -1) {
    next = text.slice(0, begin) + block + text.slice(end + AGENTS_BLOCK_END.length);
  } else if (text.trim() === '') {
    next = `${block}${eol}`;
  } else {
    const separator = text.endsWith(`${eol}${eol}`) ? '' : text.endsWith(eol) ? eol : `${eol}${eol}`;
    next = `${text}${separator}${block}${eol}`;
  }
  return { ok: true, text: next, changed: next !== text };
}
