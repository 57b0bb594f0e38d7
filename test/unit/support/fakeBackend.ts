import type { AddedComment, BackendKind, BeadsBackend, CloseOptions } from '../../../src/beads/backend';
import { CliError } from '../../../src/beads/errors';
import type { Issue, IssueDetails, LinkedIssue } from '../../../src/core/model';
import { issueDetails } from './fakeIssues';

export interface FakeBackendOptions {
  root?: string;
  kind?: BackendKind;
  readOnly?: boolean;
  /** Each call answers after this long (a real process takes time; `steps` counts them). */
  latencyMs?: number;
  /** The CLI's clock, which stamps new comments; the real time by default. */
  clock?: () => number;
}

/** One call as made: `id` is the ids of a `show`, joined by commas. */
export interface FakeCall {
  op: 'list' | 'ready' | 'show' | 'comment' | 'claim' | 'close';
  id: string;
  text?: string;
}

/**
 * The one in-memory beads of the unit tests. Issues by id; every call recorded as made (`calls`)
 * and, readable, in `log` as it ends (`list`, `ready`, `show a,b`, `comment a: text`, `claim a`,
 * `close a --force: reason`, `FAILED claim a`; tests may add their own markers). Writes take the
 * next scripted failure, apply their effect as the CLI does (an unknown id is br's refusal), and
 * can hang before or after writing, as a killed process would. `ready` follows br: open, no open
 * blocker, no children (an epic waits for its open children), with link statuses kept current.
 */
export class FakeBackend implements BeadsBackend {
  readonly kind: BackendKind;
  readonly readOnly: boolean;
  readonly root: string;
  readonly issues = new Map<string, IssueDetails>();
  readonly calls: FakeCall[] = [];
  readonly log: string[] = [];
  /** Errors thrown by the next write calls, in order. */
  failures: Error[] = [];
  /** When set, the next write applies its effect and then never answers (a process killed mid-write). */
  hangAfterWriting = false;
  /** When set, the next write never answers and writes nothing. */
  hangBeforeWriting = false;
  private readonly latencyMs: number;
  private readonly clock: () => number;
  /** For each call, how many calls had finished when it started: calls started together share a number. */
  private readonly startedAfter: number[] = [];
  private finished = 0;

  constructor(issues: readonly (IssueDetails | string)[] = [], options: FakeBackendOptions = {}) {
    this.kind = options.kind ?? 'br';
    this.readOnly = options.readOnly ?? false;
    this.root = options.root ?? '/project';
    this.latencyMs = options.latencyMs ?? 0;
    this.clock = options.clock ?? Date.now;
    for (const issue of issues) this.add(typeof issue === 'string' ? issueDetails(issue) : issue);
  }

  add(issue: IssueDetails): IssueDetails {
    this.issues.set(issue.id, issue);
    return issue;
  }

  /** Records that `blocker` blocks `blocked`, on both issues. */
  block(blocker: string, blocked: string): void {
    const from = this.issues.get(blocker) as IssueDetails;
    const to = this.issues.get(blocked) as IssueDetails;
    from.dependents.push(link(to, 'blocks'));
    to.dependencies.push(link(from, 'blocks'));
  }

  /** The texts of an issue's comments, oldest first. */
  comments(id: string): string[] {
    return this.issues.get(id)?.comments.map((comment) => comment.text) ?? [];
  }

  /** How many dependent steps the calls so far formed (calls started together are one step). */
  steps(): number {
    return new Set(this.startedAfter).size;
  }

  listInProgress(): Promise<Issue[]> {
    return this.read({ op: 'list', id: '' }, 'list', () => this.all().filter((issue) => issue.status === 'in_progress' || issue.status === 'hooked'));
  }

  listReady(): Promise<Issue[]> {
    return this.read({ op: 'ready', id: '' }, 'ready', () =>
      this.all().filter(
        (issue) =>
          issue.status === 'open' &&
          issue.dependencies.every((dependency) => dependency.dependencyType !== 'blocks' || dependency.status === 'closed') &&
          issue.dependents.every((dependent) => dependent.dependencyType !== 'parent-child'),
      ),
    );
  }

  show(ids: readonly string[]): Promise<IssueDetails[]> {
    return this.read({ op: 'show', id: ids.join(',') }, `show ${ids.join(',')}`, () => {
      const byId = new Map(this.all().map((issue) => [issue.id, issue]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    });
  }

  addComment(id: string, text: string): Promise<AddedComment | void> {
    return this.write({ op: 'comment', id, text }, `comment ${id}: ${text}`, (issue) => {
      issue.comments.push({ id: String(issue.comments.length + 1), author: 'me', text, createdAt: new Date(this.clock()).toISOString() });
    });
  }

  claim(id: string): Promise<void> {
    return this.write({ op: 'claim', id }, `claim ${id}`, (issue) => {
      issue.status = 'in_progress';
    });
  }

  close(id: string, reason: string, _signal?: AbortSignal, options?: CloseOptions): Promise<void> {
    return this.write({ op: 'close', id, text: reason }, `close ${id}${options?.force ? ' --force' : ''}: ${reason}`, (issue) => {
      issue.status = 'closed';
    });
  }

  /** Copies of every issue, with the status of each link as it is now. */
  private all(): IssueDetails[] {
    return [...this.issues.values()].map((issue) => {
      const copy = structuredClone(issue);
      for (const linked of [...copy.dependencies, ...copy.dependents]) linked.status = this.issues.get(linked.id)?.status ?? linked.status;
      return copy;
    });
  }

  private async read<T>(call: FakeCall, entry: string, answer: () => T): Promise<T> {
    this.calls.push(call);
    this.log.push(entry);
    await this.answerDelay();
    return answer();
  }

  private async write(call: FakeCall, entry: string, apply: (issue: IssueDetails) => void): Promise<void> {
    this.calls.push(call);
    await this.answerDelay();
    if (this.hangBeforeWriting) {
      this.hangBeforeWriting = false;
      return new Promise(() => undefined);
    }
    const failure = this.failures.shift();
    if (failure) {
      this.log.push(`FAILED ${call.op} ${call.id}`);
      throw failure;
    }
    const issue = this.issues.get(call.id);
    if (!issue) throw new CliError({ kind: 'exit', command: this.kind, args: [], exitCode: 3, cliMessage: `Issue not found: ${call.id}`, cliCode: 'ISSUE_NOT_FOUND' });
    apply(issue);
    this.log.push(entry);
    if (this.hangAfterWriting) {
      this.hangAfterWriting = false;
      return new Promise(() => undefined);
    }
  }

  private async answerDelay(): Promise<void> {
    this.startedAfter.push(this.finished);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    this.finished++;
  }
}

function link(issue: IssueDetails, dependencyType: LinkedIssue['dependencyType']): LinkedIssue {
  return { id: issue.id, title: issue.title, status: issue.status, priority: issue.priority, issueType: issue.issueType, dependencyType };
}
