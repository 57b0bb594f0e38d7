// Messages from the webview are untrusted: only the protocol's shapes pass, and only their fields.
import { describe, expect, it } from 'vitest';
import { SIDEBAR_ACTIONS, parseWebviewMessage } from '../../../src/shared/protocol';

describe('parseWebviewMessage', () => {
  it('accepts every message the webview sends, keeping only their fields', () => {
    expect(parseWebviewMessage({ type: 'ready', extra: 1 })).toEqual({ type: 'ready' });
    expect(parseWebviewMessage({ type: 'retry' })).toEqual({ type: 'retry' });
    expect(parseWebviewMessage({ type: 'run', requestId: 3, action: 'claim', issueId: 'demo-8', command: 'workbench.action.terminal.new' })).toEqual({
      type: 'run',
      requestId: 3,
      action: 'claim',
      issueId: 'demo-8',
    });
    expect(parseWebviewMessage({ type: 'run', requestId: 4, action: 'refresh' })).toEqual({ type: 'run', requestId: 4, action: 'refresh' });
    expect(parseWebviewMessage({ type: 'openFile', path: 'src/a.ts' })).toEqual({ type: 'openFile', path: 'src/a.ts' });
    expect(parseWebviewMessage({ type: 'focusIssue', issueId: 'demo-1' })).toEqual({ type: 'focusIssue', issueId: 'demo-1' });
    expect(parseWebviewMessage({ type: 'dismissNext', issueId: 'x' })).toEqual({ type: 'dismissNext' });
    expect(parseWebviewMessage({ type: 'run', requestId: 5, action: 'claim', issueId: 'demo-8', confirm: true })).toEqual({ type: 'run', requestId: 5, action: 'claim', issueId: 'demo-8', confirm: true });
    expect(parseWebviewMessage({ type: 'run', requestId: 5, action: 'claim', issueId: 'demo-8', confirm: 'yes' })).toBeUndefined();
  });

  it('runs only the allowlisted actions', () => {
    for (const action of SIDEBAR_ACTIONS) expect(parseWebviewMessage({ type: 'run', requestId: 1, action })).toBeDefined();
    for (const action of ['beadsRecovery.claim', 'workbench.action.terminal.sendSequence', 'constructor', '__proto__', '', 7]) {
      expect(parseWebviewMessage({ type: 'run', requestId: 1, action })).toBeUndefined();
    }
  });

  it('refuses malformed values', () => {
    for (const value of [
      null,
      undefined,
      'ready',
      42,
      [],
      { type: 'command', command: 'x' },
      { type: 'run', action: 'claim' },
      { type: 'run', requestId: 1.5, action: 'claim' },
      { type: 'run', requestId: '1', action: 'claim' },
      { type: 'run', requestId: 1, action: 'claim', issueId: 12 },
      { type: 'run', requestId: 1, action: 'claim', issueId: '' },
      { type: 'openFile', path: 'x'.repeat(1001) },
      { type: 'openFile' },
      { type: 'focusIssue', issueId: { id: 'demo-1' } },
    ]) {
      expect(parseWebviewMessage(value)).toBeUndefined();
    }
  });

  it('names a parked write by its key, only on the parked actions, and refuses an issue id there', () => {
    expect(parseWebviewMessage({ type: 'run', requestId: 6, action: 'retryParked', writeKey: 'checkpoint:demo-1:abc' })).toEqual({ type: 'run', requestId: 6, action: 'retryParked', writeKey: 'checkpoint:demo-1:abc' });
    // Without a key: every parked write (the section's buttons).
    expect(parseWebviewMessage({ type: 'run', requestId: 7, action: 'discardParked' })).toEqual({ type: 'run', requestId: 7, action: 'discardParked' });
    for (const value of [
      { type: 'run', requestId: 1, action: 'showParked', writeKey: '' },
      { type: 'run', requestId: 1, action: 'showParked', writeKey: 'k'.repeat(1001) },
      { type: 'run', requestId: 1, action: 'retryParked', writeKey: ['a'] },
      { type: 'run', requestId: 1, action: 'retryParked', issueId: 'demo-1' },
      { type: 'run', requestId: 1, action: 'claim', issueId: 'demo-1', writeKey: 'a' },
    ]) {
      expect(parseWebviewMessage(value)).toBeUndefined();
    }
  });
});

