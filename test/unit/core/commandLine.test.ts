// What an agent's shell command lines do to issues, read as text: claims, releases, closes and
// comments of bd and br, in either syntax, behind wrappers and in chains; never an expanded or
// guessed id.
import { describe, expect, it } from 'vitest';
import { commentCommandIssueIds, issueActionsIn } from '../../../src/core/commandLine';

describe('issueActionsIn', () => {
  it.each([
    ['br update demo-1 --claim', [{ kind: 'claim', issueId: 'demo-1' }]],
    ['bd update demo-1 --claim --json', [{ kind: 'claim', issueId: 'demo-1' }]],
    ['bd --actor alice update --claim --json -- demo-1', [{ kind: 'claim', issueId: 'demo-1' }]],
    ['br update demo-1 --status in_progress', [{ kind: 'claim', issueId: 'demo-1' }]],
    ['br update demo-1 -s in_progress', [{ kind: 'claim', issueId: 'demo-1' }]],
    ['bd update demo-1 --status=hooked', [{ kind: 'claim', issueId: 'demo-1' }]],
    ['bd update demo-1 --status open', [{ kind: 'release', issueId: 'demo-1' }]],
    ['br update demo-1 --assignee ""', [{ kind: 'release', issueId: 'demo-1' }]],
    ['bd close demo-1 --reason "Verified: tests pass; next - none"', [{ kind: 'close', issueId: 'demo-1' }]],
    ['br close demo-1 demo-2', [{ kind: 'close', issueId: 'demo-1' }, { kind: 'close', issueId: 'demo-2' }]],
    ['bd comments add demo-1 "Done: parser; Next: errors"', [{ kind: 'comment', issueId: 'demo-1' }]],
    ['br comments add --message="Done: x" -- demo-1', [{ kind: 'comment', issueId: 'demo-1' }]],
    ['cd src && BD_ACTOR=x ./node_modules/.bin/br update demo-3 --claim && npm test', [{ kind: 'claim', issueId: 'demo-3' }]],
    // After `--` an operand is an id whatever it looks like, as the commands the context shows write it.
    ['br comments add -- --help "Done: x; Next: y"', [{ kind: 'comment', issueId: '--help' }]],
    ['bd update --claim --json -- constructor', [{ kind: 'claim', issueId: 'constructor' }]],
    ['br close --reason "Verified: …" -- __proto__ -x', [{ kind: 'close', issueId: '__proto__' }, { kind: 'close', issueId: '-x' }]],
    ["br update --claim -- 'demo 1'", []],
  ])('%s', (command, expected) => {
    expect(issueActionsIn(command)).toEqual(expected);
  });

  it('names nothing for other programs, reads, titles and values of flags', () => {
    expect(issueActionsIn('echo br update demo-1 --claim')).toEqual([]);
    expect(issueActionsIn('br show demo-1')).toEqual([]);
    expect(issueActionsIn('br list --status in_progress --json')).toEqual([]);
    expect(issueActionsIn('br update demo-1 --title "new-title" --priority 1')).toEqual([]);
    expect(issueActionsIn('bd update --claim --parent demo-9 demo-1')).toEqual([{ kind: 'claim', issueId: 'demo-1' }]);
  });
  it('reads a command behind a wrapper and bd\'s singular comment', () => {
    expect(issueActionsIn('sudo br update demo-6 --claim')).toEqual([{ kind: 'claim', issueId: 'demo-6' }]);
    expect(issueActionsIn('npx bd comment bd-a1b progress')).toEqual([{ kind: 'comment', issueId: 'bd-a1b' }]);
  });
});

describe('commentCommandIssueIds', () => {
  it.each([
    ['br comments add demo-1 "Checkpoint: parser done"', ['demo-1']],
    ["bd comments add bd-5og.1 'done'", ['bd-5og.1']],
    ['bd comment bd-a1b progress', ['bd-a1b']],
    ['BD_ACTOR=agent /usr/local/bin/br --actor agent comments add demo-2 -m "x"', ['demo-2']],
    ['git commit -m "x" && br comments add demo-3 "commit done"; echo ok', ['demo-3']],
    ['br comments add --author me demo-4 text', ['demo-4']],
    ['br comments demo-1', []],
    ['br show demo-1', []],
    ['echo br comments add demo-1', []],
    ['sudo br comments add demo-5 x | tee log', ['demo-5']],
    ['abr comments add demo-1 x', []],
  ])('%s', (commandLine, expected) => {
    expect(commentCommandIssueIds(commandLine)).toEqual(expected);
  });
});
