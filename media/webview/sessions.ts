// The "Agent sessions" section: the sessions working in this folder, one row each — the agent
// and its session, its issue, its last activity, whether it compacted — and a mark on the one the
// status bar follows (the session on the folder's focused issue). Text only, through textContent.
import type { SessionView } from '../../src/shared/protocol';
import { custom, el, icon } from './dom';
import type { TreeNode } from './tree';

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
  const compacted = session.compactions === 0 ? 'not compacted' : session.compactions === 1 ? 'compacted once' : `compacted ${session.compactions} times`;
  const facts = [session.lastActivityAge, compacted, session.followed ? 'the status bar follows it' : undefined].filter(Boolean).join(' · ');
  const content = el(
    'span',
    { className: 'line session-row' },
    icon(session.followed ? 'eye' : 'hubot', session.followed ? 'session-followed' : ''),
    el('span', { className: 'session-agent', text: `${session.agent} ${session.session}` }),
    el('span', { className: session.issue ? 'session-issue ellipsis grow' : 'session-issue dim ellipsis grow', text: issue }),
    el('span', { className: 'dim session-facts', text: facts }),
  );
  content.title = `${session.agent} session ${session.sessionId}: ${issue}; ${facts}`;
  return { key: `session:${session.sessionId}`, content, label: `${session.agent} session ${session.session}, ${issue}, ${facts}` };
}
