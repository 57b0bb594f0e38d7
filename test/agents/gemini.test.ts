// Gemini CLI, for real, against the Gemini API stand-in (see ./harness.ts, ./scenario.ts). It
// compresses by its own measure: an answer whose usage reports a prompt over its compression
// threshold (`-p /compress` reaches the model as text).
import { describe } from 'vitest';
import { describeAgentScenarios } from './scenario';

describe('Gemini CLI', () =>
  describeAgentScenarios('gemini', {
    concurrentSessions: false,
    pending: {
      compaction: 'the compression wrote no checkpoint (0, not 1) since PreCompress only arms (Gemini fires it before every request); not fixed by 15:15',
      resume: 'after a compression the next resumed turn gets no block (0); not fixed by 15:15',
      'second-compaction': 'checkpoints do not match the compressions (4 for 3 expected); not fixed by 15:15',
    },
  }));
