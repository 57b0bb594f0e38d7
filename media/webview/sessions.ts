// The "Agent sessions" section: the sessions working in this folder, one row each, laid out for the
// sidebar's default width. The issue leads (its id and title, which wraps rather than being cut);
// the agent, its short id and its live state (working, waiting for input, idle, ended) follow on a
// dimmer line (the state's icon leads the row, its words are on that line and in the row's label), with
// its last activity and compactions; an eye marks the one the status bar follows (the session on
// the folder's focused issue). Text only, through textContent.
import type { SessionState, SessionView } from '../../src/shared/protocol';
import { custom, el, icon } from './dom';
import type { TreeNode } from './tree';

const STATE_ICONS: Record<SessionState, string> = { working: 'pulse', waiting: 'comment-discussion', idle: 'clock', ended: 'circle-slash' };
const STATE_WORDS: Record<SessionState, string> = { working: 'working', waiting: 'waiting for input', idle: 'idle', ended: 'ended' };

export function sessionsSection(sessions: readonly SessionView[]): TreeNode {
  return {
    key: 'section:sessions',
    label: `Agent sessions, ${sessions.length}`,
    content: el(
      'span',
      { className: 'line' },
      el('span', { className: 'section-title', text: 'Agent sessions' }),
      custom('vscode-badge', { text: String(sessions.length), attrs: { variant: 'counter' } }),
    ),
    expandedByDefault: true,
    className: 'section sessions',
    children: sessions.map(sessionNode),
  };
}

function sessionNode(session: SessionView): TreeNode {
  const issue = session.issue ? `${session.issue.id}${session.issue.title ? ` ${session.issue.title}` : ''}` : 'no issue of its own yet';
  const compacted = session.compactions === 0 ? undefined : session.compactions === 1 ? 'compacted once' : `compacted ${session.compactions}×`;
  const stateWords = STATE_WORDS[session.state];
  const facts = [`${session.agent} ${session.session}`, stateWords, session.lastActivityAge, compacted].filter(Boolean).join(' · ');
  const state = icon(STATE_ICONS[session.state], `session-state session-${session.state}`);
  const first = el(
    'span',
    { className: 'line' },
    state,
    ...(session.issue
      ? [el('span', { className: 'id', text: session.issue.id }), el('span', { className: 'title grow', text: session.issue.title || '(untitled)' })]
      : [el('span', { className: 'title grow dim', text: issue })]),
    session.followed ? icon('eye', 'session-followed') : undefined,
  );
  const content = el('div', { className: 'grow session-row' }, first, el('span', { className: 'line' }, el('span', { className: 'dim note grow', text: facts })));
  const followed = session.followed ? '; the status bar follows it' : '';
  content.title = `${issue}\n${session.agent} session ${session.sessionId}: ${stateWords} (${session.stateReason}), last active ${session.lastActivityAge}${compacted ? `, ${compacted}` : ''}${followed}`;
  const compactedWords = session.compactions === 0 ? 'not compacted' : compacted;
  return { key: `session:${session.sessionId}`, content, label: `${issue}; ${session.agent} session ${session.session}, ${stateWords}, ${session.lastActivityAge}, ${compactedWords}${followed}` };
}
