// GitHub Copilot CLI's session events (`~/.copilot/session-state/<session>/events.jsonl`, the
// hooks' `transcriptPath`) as agent events. One `{type, data, id, timestamp, parentId}` per line,
// as Copilot CLI 1.0 writes them:
//
//   user.message {content}                       assistant.message {content, toolRequests[]}
//   tool.execution_start {toolCallId, toolName, arguments}
//   tool.execution_complete {toolCallId, success, shellExecution{exitCode}, result{content}, error{message}}
//   session.compaction_complete {success, summary?}   a compaction, when it succeeded
//   session.start | session.resume                     a run begins (before that run's hooks start)
//   hook.start {hookType}                              a hook it runs ('preCompact', …)
//
// The one reader of that file: the session's thread (`copilotEvents`, which leaves out hooks,
// usage, turns, session start and resume) and the hook's question whether the last compaction was
// in the run still going (`compactedInThisRun`) both read these records. Pure.

import { filesOfCommand, endsWithQuestion, excerpt, isRecord, MESSAGE_CHARS, patchFiles, stringField, type AgentEvent, type FileTouch } from './agentEvents';
import { parseTimestamp } from './time';

const SHELL_TOOLS = new Set(['bash', 'shell', 'powershell']);

export function copilotEvents(records: readonly unknown[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const record of records) {
    if (!isRecord(record) || typeof record.type !== 'string' || !isRecord(record.data)) continue;
    const data = record.data;
    const at = parseTimestamp(stringField(record, 'timestamp'));
    switch (record.type) {
      case 'user.message': {
        const text = stringField(data, 'content')?.trim();
        if (text) events.push({ type: 'user', at, text: text.slice(0, MESSAGE_CHARS) });
        break;
      }
      case 'assistant.message': {
        const text = stringField(data, 'content')?.trim();
        if (text) events.push({ type: 'assistant', at, text: text.slice(0, MESSAGE_CHARS), asksQuestion: endsWithQuestion(text) });
        break;
      }
      case 'tool.execution_start': {
        const id = stringField(data, 'toolCallId') ?? '';
        const name = stringField(data, 'toolName') ?? '';
        const args = isRecord(data.arguments) ? data.arguments : {};
        calls.set(id, { name, args });
        const command = SHELL_TOOLS.has(name) ? stringField(args, 'command') : undefined;
        // GPT models in Copilot CLI edit through apply_patch, whose argument is the patch text itself.
        const patch = name === 'apply_patch' ? (typeof data.arguments === 'string' ? data.arguments : stringField(args, 'input', 'patch')) : undefined;
        events.push({ type: 'tool-call', at, id, name, command, files: patch !== undefined ? patchFiles(patch) : filesOf(name, args, command) });
        break;
      }
      case 'tool.execution_complete': {
        const id = stringField(data, 'toolCallId') ?? '';
        const shell = isRecord(data.shellExecution) ? data.shellExecution : undefined;
        const exitCode = typeof shell?.exitCode === 'number' ? shell.exitCode : undefined;
        const result = isRecord(data.result) ? stringField(data.result, 'content', 'detailedContent') : undefined;
        const error = isRecord(data.error) ? stringField(data.error, 'message') : undefined;
        const isError = data.success === false || (exitCode !== undefined && exitCode !== 0);
        events.push({ type: 'tool-result', at, id, exitCode, isError, output: excerpt(result ?? error ?? '') });
        break;
      }
      case 'session.compaction_complete': {
        if (data.success !== true) break;
        events.push({ type: 'compaction', at, trigger: stringField(data, 'trigger') });
        const summary = stringField(data, 'summary', 'summaryContent')?.trim();
        if (summary) events.push({ type: 'compaction-summary', at, text: summary });
        break;
      }
    }
  }
  return events;
}

function filesOf(name: string, args: Record<string, unknown>, command: string | undefined): FileTouch[] {
  if (command !== undefined) return filesOfCommand(command);
  const path = stringField(args, 'path', 'file_path');
  if (!path) return [];
  if (name === 'create') return [{ path, change: 'created' }];
  if (name === 'edit' || name === 'str_replace' || name === 'str_replace_editor' || name === 'insert') return [{ path, change: 'edited' }];
  if (name === 'delete') return [{ path, change: 'deleted' }];
  return [];
}

/**
 * Whether the log's records show the run that ran the last PreCompact still going: a PreCompact is
 * in it and no run began after it. False for a log that is not Copilot CLI's (no PreCompact in it:
 * VS Code's transcript) and when a later run began: that run's SessionStart hands the block over.
 */
export function compactedInThisRun(records: readonly unknown[]): boolean {
  let compaction = -1;
  let begun = -1;
  records.forEach((record, index) => {
    if (!isRecord(record)) return;
    if (record.type === 'session.start' || record.type === 'session.resume') begun = index;
    else if (record.type === 'hook.start' && isRecord(record.data) && record.data.hookType === 'preCompact') compaction = index;
  });
  return compaction >= 0 && begun < compaction;
}
