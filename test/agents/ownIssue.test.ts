// Every session its own issue, from its first claim (issue 30, item 7), in each real agent: the
// cases of ./ownIssue.ts. Run one agent at a time with -t '<agent name>'.
import { describe } from 'vitest';
import { describeOwnIssueScenarios } from './ownIssue';

describe('Claude Code: its own issue', () => describeOwnIssueScenarios('claude', { ends: 'hook' }));
describe('Codex: its own issue', () => describeOwnIssueScenarios('codex', { ends: 'idle', cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' } }));
describe('Gemini CLI: its own issue', () => describeOwnIssueScenarios('gemini', { ends: 'hook', cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' } }));
describe('Copilot CLI: its own issue', () => describeOwnIssueScenarios('copilot', { ends: 'idle', cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' } }));
describe('opencode: its own issue', () =>
  describeOwnIssueScenarios('opencode', {
    ends: 'idle',
    cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' },
  }));
