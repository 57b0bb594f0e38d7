// The messages between the extension host and the sidebar webview, and the view model they carry.
// The webview announces `ready`; the host answers with a full `state` snapshot, and sends a new
// one whenever anything changes, so the webview keeps no model of its own and renders only what
// it is sent. Everything here must survive structured cloning: plain data, no classes, no Maps.
// Messages from the webview are untrusted input for the host: `parseWebviewMessage` checks them.

/** An issue as the sidebar names it. Text is plain text: the webview renders it with textContent. */
export interface IssueRef {
  id: string;
  title: string;
  /** As the CLI reports it; statuses are open-ended, so the webview falls back to a generic look. */
  status: string;
  /** 0 (critical) to 4; other values are shown as they are. */
  priority: number;
  issueType: string;
}

/** What closing an issue unblocks. */
export interface UnblockRef extends IssueRef {
  /** True when this issue is its last open blocker; undefined when the dependent's blockers were not loaded. */
  wouldBecomeReady?: boolean;
}

/** A blocker whose status the data does not tell (deleted, or unknown to this store) is still shown. */
export interface BlockerRef extends IssueRef {
  statusKnown: boolean;
}

export interface FocusedIssueView {
  issue: IssueRef;
  assignee?: string;
  /** "3h ago" for the issue's last update. */
  updatedAge: string;
  /** Outermost first (usually the epic), ending with the direct parent. */
  ancestors: IssueRef[];
  /** True when the chain goes on above the first ancestor, but that part was not loaded. */
  ancestorsCut: boolean;
  children: IssueRef[];
  openBlockers: BlockerRef[];
  unblocks: UnblockRef[];
  /** The description's first lines, bounded; undefined when it has none. */
  description?: string;
  /** The next step the newest checkpoint named ("Next: …"); undefined when none did. */
  nextStep?: string;
}

export type TrailKind = 'commit' | 'checkpoint' | 'auto-checkpoint' | 'files' | 'note';

export interface TrailEntry {
  /** The comment's id, unique within the issue. */
  id: string;
  kind: TrailKind;
  /** The first line, without the kind's prefix. */
  summary: string;
  /** The whole comment, cut to a bound. */
  text: string;
  author: string;
  age: string;
  /** The comment's timestamp as the CLI printed it (for tooltips). */
  at: string;
}

export interface FileEntry {
  /** Relative to the project folder, with forward slashes. */
  path: string;
  /** For uncommitted changes: a word for the porcelain code ("modified", "untracked", …). */
  change?: string;
  /** The source path of a rename or copy. */
  from?: string;
}

/** A bounded list: the first items and how many more exist. */
export interface Capped<T> {
  items: T[];
  more: number;
}

/** How many files of a whole list (not only its shown part) sit under one folder. */
export interface FolderCount {
  /** The top two levels of the path, or "." for the top level. */
  folder: string;
  count: number;
}

/** The folder a path is counted under: its top two levels, or "." for the top level. */
export function folderOf(path: string): string {
  return path.split('/').slice(0, -1).slice(0, 2).join('/') || '.';
}

/** A bounded file list, with the per-folder counts of the whole list, biggest folder first. */
export interface FileList extends Capped<FileEntry> {
  folders: FolderCount[];
}

/** A part of the view whose query may fail on its own: the rest of the view stays. */
export type Part<T> = { ok: true; value: T } | { ok: false; error: string };

export interface ReadyItemView {
  issue: IssueRef;
  parent?: IssueRef;
  unblocks: IssueRef[];
  /** False when the item's dependencies were not loaded (beyond the detail cap): parent and unblocks are then unknown. */
  contextKnown: boolean;
}

/** The one next issue to work on (`pickNext`), as every surface names it. */
export interface NextView {
  item: ReadyItemView;
  /** 'unblocked': the last close made it ready. */
  reason: 'unblocked' | 'ready';
  /** The issue whose close this offer follows; the offer stays until the user dismisses it or claims. */
  afterClose?: IssueRef;
}

export interface CommitEntry {
  /** Short hash. */
  hash: string;
  subject: string;
}

/** The work recorded since the focused issue's last checkpoint (from the activity ledger). */
export interface ActivityView {
  files: FileList;
  /** Oldest first. */
  commits: Capped<CommitEntry>;
  edits: number;
  /** "25m ago", or undefined when the issue has no checkpoint yet. */
  lastCheckpointAge?: string;
  /** The same moment (epoch ms): the status bar counts its own "ago" from it. */
  lastCheckpointAt?: number;
}

/** An agent session working in the folder (src/core/sessionRows.ts). */
/**
 * working: an event within the last minutes; waiting: its transcript's last record ends a turn (it
 * waits for the user); idle: live but quiet since, mid-turn or not unknown; ended: its agent's
 * end-of-session hook ran and nothing came after.
 */
export type SessionState = 'working' | 'waiting' | 'idle' | 'ended';

export interface SessionView {
  /** The agent's name: Claude Code, Codex, Copilot, Cursor, VS Code, … */
  agent: string;
  /** The session id, shortened. */
  session: string;
  sessionId: string;
  /** The in-progress issue the session claimed or was handed. */
  issue?: { id: string; title: string };
  /** "5m ago". */
  lastActivityAge: string;
  /** Compactions seen; 0 when it has not compacted. */
  compactions: number;
  /** What the session is doing, from the facts that decide a live session (src/core/sessionRows.ts). */
  state: SessionState;
  /** The fact that decided `state`, in words: "its transcript shows its turn ended 3m ago, with nothing after it". */
  stateReason: string;
  /** The session the status bar follows: the one on the folder's focused issue. */
  followed: boolean;
}

/**
 * A write beads refused, parked in the outbox: shown until someone sends it again or discards it.
 * Every text is plain text (the reason and the words come from beads and from whoever typed them).
 */
export interface ParkedWriteView {
  /** The write's key in the outbox: what Retry, Show and Discard name. */
  key: string;
  issueId: string;
  /** The issue's title, when the view has the issue. */
  issueTitle?: string;
  /** What the write was, in words: "Checkpoint", "Automatic checkpoint", "Comment", "Claim", "Close". */
  what: string;
  /** "5m ago". */
  refusedAge: string;
  /** When beads refused it, as an ISO 8601 time (for tooltips). */
  refusedAt: string;
  /** Beads' own reason, one line. */
  reason: string;
  /** The words the write carries (a comment's text, a close's reason), cut to a bound; none for a claim. */
  words?: string;
}

export interface SidebarModel {
  /** Undefined when nothing is in progress. */
  focused?: FocusedIssueView;
  /** The in-progress issues besides the focused one, most recently updated first. */
  otherInProgress: Capped<IssueRef>;
  /** Newest first. */
  trail: Capped<TrailEntry>;
  /** Undefined when no activity ledger is available for the focused issue. */
  activity?: ActivityView;
  /** Undefined outside a git repository. */
  uncommitted?: Part<FileList>;
  /** Beads writes queued in the outbox and not yet landed; undefined when the outbox is not available. */
  pendingWrites?: number;
  /** Writes beads refused, newest first; undefined when there are none (or no outbox). */
  parkedWrites?: Capped<ParkedWriteView>;
  /** In the CLI's own order. */
  ready: Part<Capped<ReadyItemView>>;
  /** What to claim next; undefined when nothing claimable is ready. */
  next?: NextView;
  /** Errors of the parts that have no place of their own (issue details). */
  problems: string[];
  /** The agent sessions working in this folder, most recently active first; undefined when none is known. */
  sessions?: SessionView[];
}

export interface ProjectInfo {
  name: string;
  /** The CLI that serves the project, or "jsonl" for the read-only reader. */
  backend: string;
  /** The CLI's version as it reports it (`bd version --json`, `br version --json`), once known. */
  cliVersion?: string;
  /** That version is a withdrawn release (the release warning says why): the view marks it with an icon, and says so on hover. */
  cliWithdrawn?: boolean;
  /** Why writes are off; undefined when the CLI serves the project. */
  readOnlyReason?: string;
  /** What kind of reason that is, for the banner's short line and its way out. */
  readOnlyKind?: ReadOnlyKind;
}

export type ReadOnlyKind = 'untrusted' | 'cli-missing' | 'cli-failed' | 'cli-timeout' | 'migrating';

export type ViewState =
  | { kind: 'loading' }
  | { kind: 'not-beads'; folderName?: string }
  /** The very first load failed: there is no earlier view to keep. */
  | { kind: 'error'; message: string; project?: ProjectInfo }
  | {
      kind: 'project';
      project: ProjectInfo;
      model: SidebarModel;
      /** The latest refresh failed with this message; `model` is the last good one. */
      refreshError?: string;
      refreshing: boolean;
    };

/** The actions the webview may ask for; the host maps each to one command. */
export const SIDEBAR_ACTIONS = [
  'claim',
  'close',
  'checkpoint',
  'copyContext',
  'injectContext',
  'refresh',
  'setCliPath',
  'showLog',
  'manageTrust',
  // A write beads refused (its `writeKey`, or every one without): send again, show the words, discard.
  'retryParked',
  'showParked',
  'discardParked',
] as const;
export type SidebarAction = (typeof SIDEBAR_ACTIONS)[number];

/** The actions on writes beads refused: they name a write by its key, never an issue. */
export const PARKED_ACTIONS: ReadonlySet<SidebarAction> = new Set<SidebarAction>(['retryParked', 'showParked', 'discardParked']);

export type HostMessage =
  | { type: 'state'; state: ViewState }
  /** The answer to a `run`: the webview shows progress on the control that sent it until then. */
  | { type: 'done'; requestId: number; error?: string };

export type WebviewMessage =
  | { type: 'ready' }
  /** `confirm`: the host asks before acting (a key press is easier to make by accident than a click). */
  | { type: 'run'; requestId: number; action: SidebarAction; issueId?: string; confirm?: true; /** A parked write's key (only with a parked action). */ writeKey?: string }
  | { type: 'openFile'; path: string }
  | { type: 'focusIssue'; issueId: string }
  /** The user put the after-close offer away. */
  | { type: 'dismissNext' }
  | { type: 'retry' };

const MAX_TEXT = 1000;

/** The message if it is one the webview may send, else undefined. Strings are bounded; nothing else passes. */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'ready':
      return { type: 'ready' };
    case 'retry':
      return { type: 'retry' };
    case 'dismissNext':
      return { type: 'dismissNext' };
    case 'run': {
      const { requestId, action, issueId, confirm, writeKey } = message;
      if (!Number.isSafeInteger(requestId) || !isSidebarAction(action)) return undefined;
      if (confirm !== undefined && confirm !== true) return undefined;
      const run: WebviewMessage = { type: 'run', requestId: requestId as number, action };
      if (confirm) run.confirm = true;
      if (PARKED_ACTIONS.has(action)) {
        // A parked write is named by its key alone.
        if (issueId !== undefined) return undefined;
        if (writeKey === undefined) return run;
        return isBoundedText(writeKey) ? { ...run, writeKey } : undefined;
      }
      if (writeKey !== undefined) return undefined;
      if (issueId === undefined) return run;
      return isBoundedText(issueId) ? { ...run, issueId } : undefined;
    }
    case 'openFile':
      return isBoundedText(message.path) ? { type: 'openFile', path: message.path } : undefined;
    case 'focusIssue':
      return isBoundedText(message.issueId) ? { type: 'focusIssue', issueId: message.issueId } : undefined;
    default:
      return undefined;
  }
}

function isSidebarAction(value: unknown): value is SidebarAction {
  return typeof value === 'string' && (SIDEBAR_ACTIONS as readonly string[]).includes(value);
}

function isBoundedText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT;
}
