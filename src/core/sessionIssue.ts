// "Which issue is this session's?" — one answer for the recovery context, checkpoints, hooks, the
// MCP server, the language-model tools and VS Code. Pure: the facts (the session's binding, the
// actor, the folder's focus, the in-progress issues) come in, the choice and the rule that made
// it go out.
//
// The order (README "Which issue is this session's?"):
//   1. the session's own binding — the issue it claimed or was handed, recorded from its events;
//   2. the actor, resolved as the detected CLI resolves it, matched against the assignee of the
//      in-progress (`in_progress`/`hooked`) issues;
//   3. VS Code's focus for the folder;
//   4. the most recently updated in-progress issue.
// Rules 2–4 never hand over an issue another live agent session's own commands claimed (or
// commented on): that issue is listed as held, with the session's agent and times. An issue whose
// session ended (its end hook ran, or it was silent past the live limit) is free again; one a
// context only handed a session may be handed to another too (each checkpoint names its own work).
// An actor set on purpose (a flag, an environment variable, beads' config) says who this is: the
// focus and the newest issue then never hand it an issue another actor holds.

import type { Dialect, Issue } from './model';
import { compareNumbers, compareText } from './compare';
import { parseTimestamp } from './time';

export type IssueRule = 'binding' | 'actor' | 'focus' | 'newest';

/** Where the actor's name came from, as the CLI would have taken it. */
export type ActorSource = 'flag' | 'BEADS_ACTOR' | 'BD_ACTOR' | 'config' | 'git' | 'USER';

export interface Actor {
  name: string;
  source: ActorSource;
}

/** What the actor chain reads: the `--actor` flag, the environment, beads' `config.yaml` `actor`, git's `user.name`. */
export interface ActorFacts {
  dialect: Dialect;
  flag?: string;
  env: { BEADS_ACTOR?: string; BD_ACTOR?: string; USER?: string };
  /** `actor:` of `.beads/config.yaml`. */
  config?: string;
  /** `git config user.name` in the folder (bd only reads it). */
  gitUserName?: string;
}

/**
 * The actor the CLI would write as the assignee of a claim, in its own order (docs/BEADS_CONTRACT.md C12):
 * - bd: `--actor` > `BEADS_ACTOR` > `BD_ACTOR` (deprecated) > config `actor` > git `user.name` > `$USER`
 *   (cmd/bd/main.go `getActorWithGit` and `resolveConfiguredActor`, GH#4645; bd before that fix read
 *   `BD_ACTOR` first, so a shell that sets both to different names is ambiguous there);
 * - br: `--actor` > `BD_ACTOR` > config `actor` > `$USER`; its claims read neither `BEADS_ACTOR` nor git
 *   (src/config/mod.rs `resolve_actor`, `actor_from_layer`).
 * Undefined when nothing names one (the CLI would say "unknown", which matches no real assignee).
 */
export function resolveActor(facts: ActorFacts): Actor | undefined {
  const chain: [string | undefined, ActorSource][] =
    facts.dialect === 'bd'
      ? [
          [facts.flag, 'flag'],
          [facts.env.BEADS_ACTOR, 'BEADS_ACTOR'],
          [facts.env.BD_ACTOR, 'BD_ACTOR'],
          [facts.config, 'config'],
          [facts.gitUserName, 'git'],
          [facts.env.USER, 'USER'],
        ]
      : [
          [facts.flag, 'flag'],
          [facts.env.BD_ACTOR, 'BD_ACTOR'],
          [facts.config, 'config'],
          [facts.env.USER, 'USER'],
        ];
  for (const [value, source] of chain) {
    const name = value?.trim();
    if (name) return { name, source };
  }
  return undefined;
}

/** Set on purpose for this process or project, rather than the machine's defaults (git's name, the login). */
export function isExplicitActor(actor: Actor | undefined): boolean {
  return actor !== undefined && actor.source !== 'git' && actor.source !== 'USER';
}

/** Another agent session that is still live, with the issues it is bound to (most binding first). */
export interface LiveSession {
  agent: string;
  sessionId: string;
  bindings: readonly { issueId: string; since: number }[];
  /** Epoch ms of its latest event (a hook run, a transcript entry). */
  lastActive: number;
}

/** An in-progress issue another live session is bound to: not this session's to take. */
export interface HeldIssue {
  issueId: string;
  agent: string;
  sessionId: string;
  /** Epoch ms since which that session is bound to it. */
  since: number;
  lastActive: number;
}

export interface SessionIssueFacts {
  /** The in-progress issues (any order). */
  inProgress: readonly Pick<Issue, 'id' | 'assignee' | 'updatedAt'>[];
  /** The other agent sessions of the work tree that are still live (not this one). */
  liveSessions?: readonly LiveSession[];
  /** The issue this session's own events bound it to. */
  binding?: string;
  /** The binding is an issue an earlier context handed the session, by this rule: the context says so again, in the same words. */
  bindingHandedBy?: IssueRule;
  actor?: Actor;
  /** VS Code's focus for the folder (the ledger's). */
  focusedId?: string;
}

export interface SessionIssueChoice {
  /** Undefined when no in-progress issue is this session's to resume. */
  issueId?: string;
  rule?: IssueRule;
  actor?: Actor;
  /** The binding named an issue that is no longer in progress (closed or unclaimed): it ends. */
  bindingEnded: boolean;
  /** In-progress issues left out because another actor or another live session holds them. */
  heldByOthers: number;
  /** The in-progress issues other live sessions are bound to, newest first (left out unless this session is bound to one itself). */
  heldByLive: HeldIssue[];
  /** For a binding that an earlier context handed over: the rule that chose it then. */
  handedBy?: IssueRule;
}

export function chooseSessionIssue(facts: SessionIssueFacts): SessionIssueChoice {
  const issues = newestFirst(facts.inProgress);
  const inProgress = (id: string | undefined) => id !== undefined && issues.some((issue) => issue.id === id);
  const bindingEnded = facts.binding !== undefined && !inProgress(facts.binding);
  const heldByLive = heldByLiveSessions(issues, facts.liveSessions ?? []);
  const base = { actor: facts.actor, bindingEnded, heldByOthers: 0, heldByLive };
  if (facts.binding !== undefined && !bindingEnded) {
    const handedBy = facts.bindingHandedBy !== 'binding' ? facts.bindingHandedBy : undefined;
    // Its own issue, even when another live session works on it too (that one is not listed as held).
    return { ...base, heldByLive: heldByLive.filter((entry) => entry.issueId !== facts.binding), issueId: facts.binding, rule: 'binding', ...(handedBy ? { handedBy } : {}) };
  }

  // Another live session's issue is not handed over by any rule below.
  const held = new Set(heldByLive.map((entry) => entry.issueId));
  const free = issues.filter((issue) => !held.has(issue.id));
  const actor = facts.actor;
  if (actor) {
    const own = free.filter((issue) => sameActor(issue.assignee, actor.name));
    if (own.length > 0) {
      // Several of the actor's own: the focus among them, else the newest.
      const pick = own.find((issue) => issue.id === facts.focusedId) ?? own[0];
      return { ...base, issueId: pick?.id, rule: 'actor' };
    }
  }
  const heldByOther = (issue: Pick<Issue, 'assignee'>) => isExplicitActor(actor) && !!issue.assignee?.trim() && !sameActor(issue.assignee, actor?.name ?? '');
  const open = free.filter((issue) => !heldByOther(issue));
  const rest = { ...base, heldByOthers: issues.length - open.length };
  const focused = open.find((issue) => issue.id === facts.focusedId);
  if (focused) return { ...rest, issueId: focused.id, rule: 'focus' };
  const newest = open[0];
  return newest ? { ...rest, issueId: newest.id, rule: 'newest' } : rest;
}

/** For each live session, the first of its bindings that is in progress: the issue it works on. */
function heldByLiveSessions(issues: readonly Pick<Issue, 'id'>[], sessions: readonly LiveSession[]): HeldIssue[] {
  const order = new Map(issues.map((issue, index) => [issue.id, index]));
  const held = new Map<string, HeldIssue>();
  for (const session of sessions) {
    const binding = session.bindings.find((entry) => order.has(entry.issueId));
    if (!binding) continue;
    const known = held.get(binding.issueId);
    // Two live sessions on one issue: the one active last is named.
    if (known && known.lastActive >= session.lastActive) continue;
    held.set(binding.issueId, { issueId: binding.issueId, agent: session.agent, sessionId: session.sessionId, since: binding.since, lastActive: session.lastActive });
  }
  return [...held.values()].sort((a, b) => (order.get(a.issueId) ?? 0) - (order.get(b.issueId) ?? 0));
}

/**
 * The one short line the recovery context adds when the session's own binding did not choose
 * (undefined when it did, or when nothing was chosen).
 */
export function describeSessionIssueChoice(choice: SessionIssueChoice): string | undefined {
  // A binding the session made itself needs no word; one a context handed over keeps the words it had then.
  const chosenBy = choice.rule === 'binding' ? choice.handedBy : choice.rule;
  if (!choice.issueId || !chosenBy || chosenBy === 'binding') return undefined;
  const actor = choice.actor;
  const rule =
    chosenBy === 'actor' && actor
      ? `assigned to ${actor.name.length > ACTOR_NAME_CHARS ? `${actor.name.slice(0, ACTOR_NAME_CHARS)}…` : actor.name} (${ACTOR_SOURCE_WORDS[actor.source]})`
      : chosenBy === 'focus'
        ? "VS Code's focus for this folder"
        : 'the most recently updated in-progress issue';
  const heldElsewhere = choice.heldByLive.length > 0 ? `; ${choice.heldByLive.length === 1 ? 'the issue' : `${choice.heldByLive.length} issues`} another live session holds left out` : '';
  return `${rule}${heldElsewhere}; no claim by this session is recorded`;
}

/** An actor's name in that line: enough to recognise, not a paragraph. */
const ACTOR_NAME_CHARS = 60;

const ACTOR_SOURCE_WORDS: Record<ActorSource, string> = {
  flag: '--actor',
  BEADS_ACTOR: 'BEADS_ACTOR',
  BD_ACTOR: 'BD_ACTOR',
  config: 'beads config',
  git: 'git user.name',
  USER: 'USER',
};

function sameActor(assignee: string | undefined, name: string): boolean {
  return assignee !== undefined && assignee.trim() !== '' && assignee.trim() === name.trim();
}

/** Most recently updated first; ties (and unreadable times, last) by id, so every surface picks the same. */
function newestFirst<T extends Pick<Issue, 'id' | 'updatedAt'>>(issues: readonly T[]): T[] {
  const at = (issue: T) => parseTimestamp(issue.updatedAt) ?? Number.NEGATIVE_INFINITY;
  return [...issues].sort((a, b) => compareNumbers(at(b), at(a)) || compareText(a.id, b.id));
}
