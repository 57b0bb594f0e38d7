// Every session its own issue, from its first claim (issue 30, item 7), in each real agent: the
// cases of ./ownIssue.ts. Run one agent at a time with -t '<agent name>'.
import { describe } from 'vitest';
import { describeOwnIssueScenarios } from './ownIssue';

describe('Claude Code: its own issue', () => describeOwnIssueScenarios('claude', { ends: 'hook' }));
describe('Codex: its own issue', () => describeOwnIssueScenarios('codex', { ends: 'idle', cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' } }));
describe('Copilot CLI: its own issue', () => describeOwnIssueScenarios('copilot', { ends: 'idle', cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' } }));
describe('opencode: its own issue', () =>
  describeOwnIssueScenarios('opencode', {
    ends: 'idle',
    cannot: { fork: 'not tried here: the case is Claude Code\'s SessionStart source fork' },
    pending: {
      'claim-then-resume': "the resumed run's hook answers nothing (\"not twice\"), so the newest block still names demo-1: the correction is not given through the plugin",
      overlapping: "beta's start block resumed alpha's demo-8, alpha's claim not yet read; likely because the plugin rewrites alpha's transcript after its br command (tool.execute.after), which opencode calls before the command's part is stored as completed, so the claim would not be read until alpha's next hook",
    },
  }));
