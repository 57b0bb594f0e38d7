// Claude Code, for real, against the Anthropic Messages stand-in (see ./harness.ts, ./scenario.ts).
// Its compaction is `/compact` as the prompt of a resumed print-mode run.
import { describe } from 'vitest';
import { describeAgentScenarios } from './scenario';

describe('Claude Code', () => describeAgentScenarios('claude', { concurrentSessions: true }));
