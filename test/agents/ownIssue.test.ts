// Every session its own issue, from its first claim (issue 30, item 7), in each real agent: the
// cases of ./ownIssue.ts. Run one agent at a time with -t '<agent name>'.
import { describe } from 'vitest';
import { describeOwnIssueScenarios } from './ownIssue';

describe('Claude Code: its own issue', () => describeOwnIssueScenarios('claude', { ends: 'hook' }));
describe('Codex: its own issue', () => describeOwnIssueScenarios('codex', { ends: 'idle' }));
describe('Copilot CLI: its own issue', () => describeOwnIssueScenarios('copilot', { ends: 'idle' }));
