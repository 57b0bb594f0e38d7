// Gemini CLI, for real, against the Gemini API stand-in (see ./harness.ts, ./scenario.ts). It
// compresses by its own measure: an answer whose usage reports a prompt over its compression
// threshold (`-p /compress` reaches the model as text).
import { describe } from 'vitest';
import { describeAgentScenarios } from './scenario';

describe('Gemini CLI', () => describeAgentScenarios('gemini', { concurrentSessions: false }));
