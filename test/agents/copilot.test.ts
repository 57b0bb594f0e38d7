// Copilot CLI, for real, with its own model provider (BYOK) pointed at the Anthropic Messages
// stand-in (see ./harness.ts, ./scenario.ts). It loads .github/hooks/*.json, VS Code's format
// included, once the folder is trusted (COPILOT_ALLOW_ALL=true), and compacts by its own measure:
// an answer that reports more than COPILOT_PROVIDER_MAX_PROMPT_TOKENS.
import { describe } from 'vitest';
import { describeAgentScenarios } from './scenario';

describe('Copilot CLI', () => describeAgentScenarios('copilot', { concurrentSessions: false }));
