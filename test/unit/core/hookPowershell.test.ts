// The PowerShell our hook commands hold, read by a PowerShell grammar (tree-sitter-powershell, in
// WebAssembly): PowerShell itself runs on no machine of this project (test/windows runs Wine, whose
// powershell.exe is a stub). Each text must parse without error into the statements we mean: the
// POSIX half of the one command for sh and PowerShell a comment, and the launcher started with the
// hook's words.
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { shimCommandLine } from '../../../src/core/hookConfig';

let parser: Parser;

beforeAll(async () => {
  await Parser.init();
  parser = new Parser();
  parser.setLanguage(await Language.load(createRequire(import.meta.url).resolve('tree-sitter-powershell/tree-sitter-powershell.wasm')));
});

/** The top-level statements and comments of a PowerShell text, which must parse without error. */
function statements(text: string): Node[] {
  const root = parser.parse(text)!.rootNode;
  expect(root.hasError, root.toString()).toBe(false);
  return root.namedChildren.flatMap((node) => (node?.type === 'statement_list' ? node.namedChildren : [node])).filter((node): node is Node => node !== null && node.type !== 'empty_statement');
}

/** The words of the first command in a node: its name (after `&`, if any) and its arguments. */
function commandWords(node: Node): string[] {
  const command = node.type === 'command' ? node : node.descendantsOfType('command')[0];
  if (!command) throw new Error(`no command in ${node.toString()}`);
  return command.namedChildren.flatMap((child) => {
    if (!child) return [];
    if (child.type === 'command_elements') return child.namedChildren.filter((element) => element && element.type !== 'command_argument_sep').map((element) => element!.text);
    return [child.text];
  });
}

const launcherAssignment = '$launcher = "$env:USERPROFILE\\.beads-recovery\\bin\\beads-recovery.cmd"';

describe('the PowerShell in our hook commands, parsed', () => {
  it('the one command for sh and PowerShell (Gemini CLI, Cursor): a `set`, the POSIX half as a comment, then the launcher', () => {
    const command = shimCommandLine(['hook', 'gemini', 'BeforeModel'], 'posix-or-powershell');
    // As Gemini CLI runs it on Windows: its exit-code check appended.
    const parsed = statements(`${command}; if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }`);
    expect(parsed.map((node) => node.type)).toEqual(['pipeline', 'comment', 'pipeline', 'if_statement', 'comment']);
    const [set, posix, assignment, ifStatement, marker] = parsed as [Node, Node, Node, Node, Node];
    expect(commandWords(set)).toEqual(['set', 'BR', '"\\"']);
    expect(posix.text).toBe(`<# "; ${shimCommandLine(['hook', 'gemini', 'BeforeModel'], 'posix').replace(/ # beads-recovery$/, '')} #>`);
    expect(assignment.text).toBe(launcherAssignment);
    expect(commandWords(ifStatement.childForFieldName('condition') ?? ifStatement.namedChildren[0]!)).toEqual(['Test-Path', '-LiteralPath', '$launcher']);
    expect(commandWords(ifStatement.descendantsOfType('statement_block')[0]!)).toEqual(['&', '$launcher', 'hook', 'gemini', 'BeforeModel']);
    expect(marker.text).toMatch(/^# beads-recovery;/);
  });

  it('without the `;` after the block comment, PowerShell would take the assignment for more arguments of `set`', () => {
    const command = shimCommandLine(['hook', 'cursor', 'sessionStart'], 'posix-or-powershell').replace('#>; ', '#> ');
    expect(commandWords(statements(command)[0]!)).toEqual(['set', 'BR', '"\\"', '$launcher', '=', '"$env:USERPROFILE\\.beads-recovery\\bin\\beads-recovery.cmd"']);
  });

  it("Copilot CLI's `powershell` and Codex's encoded script: the launcher, started with the hook's words when it is there", () => {
    const copilot = statements(shimCommandLine(['hook', 'copilot', 'PreCompact'], 'powershell'));
    expect(copilot.map((node) => node.type)).toEqual(['pipeline', 'if_statement', 'comment']);
    expect(copilot[0]!.text).toBe(launcherAssignment);
    expect(commandWords(copilot[1]!.descendantsOfType('statement_block')[0]!)).toEqual(['&', '$launcher', 'hook', 'copilot', 'PreCompact']);

    const encoded = shimCommandLine(['hook', 'codex', 'SessionStart'], 'encoded-powershell').split(' ').at(-1)!;
    const codex = statements(Buffer.from(encoded, 'base64').toString('utf16le'));
    expect(codex.map((node) => node.type)).toEqual(['pipeline', 'if_statement']);
    expect(codex[0]!.text).toBe(launcherAssignment);
    const block = codex[1]!.descendantsOfType('statement_block')[0]!;
    expect(commandWords(block)).toEqual(['&', '$launcher', 'hook', 'codex', 'SessionStart']);
    expect(block.text).toMatch(/; exit \$LASTEXITCODE \}$/);
  });
});
