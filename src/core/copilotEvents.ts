// Copilot CLI's session log (`session-state/<id>/events.jsonl`, the `transcript_path` of its
// PreCompact input): one JSON event a line, `session.start` or `session.resume` when a run begins
// (before that run's hooks start), `hook.start` with its `hookType` for each hook it runs. Pure: the
// caller reads the end of the file.

const RUN_BEGINS = ['"type":"session.start"', '"type":"session.resume"'];
const PRE_COMPACT = '"hookType":"preCompact"';

/**
 * Whether the log shows the run that ran the last PreCompact still going: a PreCompact is in it
 * and no run began after it. False for a log that is not Copilot CLI's (no PreCompact in it: VS
 * Code's transcript) and when a later run began: that run's SessionStart hands the block over.
 */
export function compactedInThisRun(eventsTail: string): boolean {
  const compaction = eventsTail.lastIndexOf(PRE_COMPACT);
  if (compaction < 0) return false;
  return RUN_BEGINS.every((begins) => eventsTail.lastIndexOf(begins) < compaction);
}
