import { describe, expect, it } from 'vitest';
import { AGENTS_BLOCK_BEGIN, AGENTS_BLOCK_END, agentsBlock, upsertAgentsBlock, type AgentsEdit } from '../../../src/core/agentsBlock';

function text(edit: AgentsEdit): string {
  if (!edit.ok) throw new Error(edit.error);
  return edit.text;
}

describe('agentsBlock', () => {
  it('tells agents to call the tool or the command line, in the CLI\'s own syntax, with no live state', () => {
    const block = agentsBlock('bd');
    expect(block.startsWith(AGENTS_BLOCK_BEGIN)).toBe(true);
    expect(block.endsWith(AGENTS_BLOCK_END)).toBe(true);
    expect(block).toContain('`beads_getRecoveryContext`');
    expect(block).toContain('`beads-recovery context`');
    expect(block).toContain('`get_recovery_context` of the `beads-recovery` server (`beads-recovery mcp`');
    expect(block).toContain('`write_checkpoint`');
    expect(block).toContain('`beads-recovery checkpoint --message "<summary>"`');
    // The id after `--`, as in every command the context shows: an id like `--help` is no flag.
    expect(block).toContain('`bd show -- <id>`');
    expect(block).not.toMatch(/\bbr\b/);
    expect(agentsBlock('br')).toContain('`br comments add -- <id> "Checkpoint: <what is done, what is next>"`');
    for (const cli of ['bd', 'br'] as const) expect(agentsBlock(cli)).not.toMatch(/(?<!--) <id>/);
  });
});

describe('upsertAgentsBlock', () => {
  it('creates the file when there is none', () => {
    expect(upsertAgentsBlock(undefined, 'br')).toEqual({ ok: true, changed: true, text: `${agentsBlock('br')}\n` });
  });

  it('appends after a blank line and keeps everything before it', () => {
    const existing = '# Agents\n\nRun `npm test` before committing.\n';
    expect(text(upsertAgentsBlock(existing, 'br'))).toBe(`${existing}\n${agentsBlock('br')}\n`);
    expect(text(upsertAgentsBlock('# Agents', 'br'))).toBe(`# Agents\n\n${agentsBlock('br')}\n`);
  });

  it('is idempotent, and replaces only what is between the markers', () => {
    const once = text(upsertAgentsBlock('# Agents\n', 'br'));
    expect(upsertAgentsBlock(once, 'br')).toEqual({ ok: true, changed: false, text: once });
    const edited = once.replace('Mention the issue id', 'Mention THE issue id') + '\n## After\nkept\n';
    expect(text(upsertAgentsBlock(edited, 'bd'))).toBe(`# Agents\n\n${agentsBlock('bd')}\n\n## After\nkept\n`);
  });

  it('keeps CRLF line endings', () => {
    const result = text(upsertAgentsBlock('# Agents\r\n', 'br'));
    expect(result).toBe(`# Agents\r\n\r\n${agentsBlock('br').replace(/\n/g, '\r\n')}\r\n`);
  });

  it.each([
    ['a begin marker alone', `x\n${AGENTS_BLOCK_BEGIN}\ny`],
    ['markers in the wrong order', `${AGENTS_BLOCK_END}\n${AGENTS_BLOCK_BEGIN}`],
    ['two blocks', `${agentsBlock('br')}\n${agentsBlock('br')}`],
  ])('refuses %s and changes nothing', (_name, existing) => {
    expect(upsertAgentsBlock(existing, 'br').ok).toBe(false);
  });
});
