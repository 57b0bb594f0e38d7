// What the MCP server tells the model about itself (its `instructions`). Truthful about the hooks:
// where a beads-recovery hook already hands the recovery context over at a new session and after
// each compaction, the model is told it has it and need not fetch it again.
// Codex shows agents the first 512 characters: each version stands on its own within them.
import { blockMarkLine } from './blockMark';

const CHECKPOINT = 'Call write_checkpoint with a one-line summary (done, approach, next) when a piece of work is done and before you stop.';

/** `hooked`: the labels of the agents whose hooks in this project hand the context over by themselves. */
export function mcpInstructions(hooked: readonly string[]): string {
  if (hooked.length === 0) {
    return (
      'Beads Recovery keeps the work on this project recoverable. Call get_recovery_context at the start of work, ' +
      'after a restart, in a new session and whenever the conversation was compacted or summarized, before anything else: ' +
      `it returns the in-progress beads issue, its checkpoint trail, commits and changed files. ${CHECKPOINT}`
    );
  }
  return (
    `Beads Recovery: its hooks for ${hooked.join(', ')} already put this project's recovery context into the conversation ` +
    `at a new session and after each compaction (its last line is "${blockMarkLine('<digest>')}"): do not fetch it again; ` +
    `call get_recovery_context only when the conversation lacks it. ${CHECKPOINT}`
  );
}
