// Reading the stand-in's call log (BEADS_STANDIN_LOG): one JSON line per CLI process.
import { readFileSync } from 'node:fs';

export interface CallRecord {
  args: string[];
  startedAt: string;
  endedAt: string;
}

export function readCalls(file: string): CallRecord[] {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as CallRecord);
  } catch {
    return [];
  }
}

/** The longest chain of calls each started after the previous one ended: calls that overlap are one step. */
export function dependentSteps(calls: readonly CallRecord[]): number {
  const sorted = [...calls].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const depth: number[] = [];
  sorted.forEach((call, index) => {
    const before = sorted.slice(0, index).map((other, at) => (Date.parse(other.endedAt) <= Date.parse(call.startedAt) ? (depth[at] ?? 0) : 0));
    depth.push(1 + Math.max(0, ...before));
  });
  return Math.max(0, ...depth);
}

/** "list -s in_progress, show ×5": each call by its command, a show by how many ids it asked for. */
export function describeCalls(calls: readonly CallRecord[]): string {
  return calls.map((call) => (call.args[0] === 'show' ? `show ×${call.args.filter((arg) => !arg.startsWith('-')).length - 1}` : call.args.slice(0, 3).join(' '))).join(', ');
}
