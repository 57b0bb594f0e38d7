import type { BackendKind, BeadsBackend, CloseOptions } from '../../../src/beads/backend';
import { CliError } from '../../../src/beads/errors';
import type { Issue, IssueDetails } from '../../../src/core/model';
import { issueDetails } from './fakeIssues';

export interface FakeBackendOptions {
  root?: string;
  kind?: BackendKind;
  readOnly?: boolean;
}

/**
 * An in-memory beads for unit tests: issues by id, every call logged in order (`calls`), and a
 * script of failures that the next writes throw. A write applies its effect as the CLI would
 * (a comment appended, a claim or close changing the status); an unknown id is br's refusal.
 */
export class FakeBackend implements BeadsBackend {
  readonly kind: BackendKind;
  readonly readOnly: boolean;
  readonly root: string;
  readonly issues = new Map<string, IssueDetails>();
  /** Every call, in order: `list`, `ready`, `show a,b`, `comment a: text`, `claim a`, `close a: reason`. */
  readonly calls: string[] = [];
  /** Errors thrown by the next write calls, in order. */
  failures: Error[] = [];

  constructor(issues: readonly (IssueDetails | string)[] = [], options: FakeBackendOptions = {}) {
    this.kind = options.kind ?? 'br';
    this.readOnly = options.readOnly ?? false;
    this.root = options.root ?? '/project';
    for (const issue of issues) this.add(typeof issue === 'string' ? issueDetails(issue) : issue);
  }

  add(issue: IssueDetails): IssueDetails {
    this.issues.set(issue.id, issue);
    return issue;
  }

  /** The texts of an issue's comments, oldest first. */
  comments(id: string): string[] {
    return this.issues.get(id)?.comments.map((comment) => comment.text) ?? [];
  }

  async listInProgress(): Promise<Issue[]> {
    this.calls.push('list');
    return this.all().filter((issue) => issue.status === 'in_progress' || issue.status === 'hooked');
  }

  async listReady(): Promise<Issue[]> {
    this.calls.push('ready');
    return this.all().filter((issue) => issue.status === 'open');
  }

  async show(ids: readonly string[]): Promise<IssueDetails[]> {
    this.calls.push(`show ${ids.join(',')}`);
    return ids.flatMap((id) => {
      const issue = this.issues.get(id);
      return issue ? [structuredClone(issue)] : [];
    });
  }

  addComment(id: string, text: string): Promise<void> {
    return this.write(`comment ${id}: ${text}`, id, (issue) => {
      issue.comments.push({ id: String(issue.comments.length + 1), author: 'me', text, createdAt: new Date().toISOString() });
    });
  }

  claim(id: string): Promise<void> {
    return this.write(`claim ${id}`, id, (issue) => {
      issue.status = 'in_progress';
    });
  }

  close(id: string, reason: string, _signal?: AbortSignal, options?: CloseOptions): Promise<void> {
    return this.write(`close ${id}${options?.force ? ' --force' : ''}: ${reason}`, id, (issue) => {
      issue.status = 'closed';
    });
  }

  private all(): IssueDetails[] {
    return [...this.issues.values()].map((issue) => structuredClone(issue));
  }

  protected async write(call: string, id: string, apply: (issue: IssueDetails) => void): Promise<void> {
    this.calls.push(call);
    const failure = this.failures.shift();
    if (failure) throw failure;
    const issue = this.issues.get(id);
    if (!issue) throw new CliError({ kind: 'exit', command: this.kind, args: [], exitCode: 3, cliMessage: `Issue not found: ${id}`, cliCode: 'ISSUE_NOT_FOUND' });
    apply(issue);
  }
}
