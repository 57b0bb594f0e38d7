// Edits to a JSON (or JSONC) text that change only the bytes they must. jsonc-parser's `modify`
// with formatting options re-formats every line an edit touches, so a neighbour written on one line,
// `"other": { "command": "x" }`, comes out spread over several. Here the edit is computed without
// formatting and only the text it adds is formatted; a removal takes out exactly what an insertion
// at that place adds, so an uninstall after an install gives the original bytes. Pure.
import { applyEdits, findNodeAtLocation, format, modify, parseTree, type Edit, type FormattingOptions, type JSONPath, type Node } from 'jsonc-parser';

/**
 * The first key written twice in one object, anywhere in the document, and the path of that
 * object; undefined when every key is unique. jsonc-parser finds (and edits) the first of two equal
 * keys, JSON readers keep the last: an edit there would land where the file's reader never looks.
 */
export function duplicateKey(root: Node | undefined): { container: JSONPath; key: string } | undefined {
  const visit = (node: Node, at: JSONPath): { container: JSONPath; key: string } | undefined => {
    const seen = new Set<string>();
    for (const [index, child] of (node.children ?? []).entries()) {
      if (node.type === 'object') {
        const [keyNode, value] = child.children ?? [];
        const key = String(keyNode?.value);
        if (seen.has(key)) return { container: at, key };
        seen.add(key);
        const found = value && visit(value, [...at, key]);
        if (found) return found;
      } else if (node.type === 'array') {
        const found = visit(child, [...at, index]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return root ? visit(root, []) : undefined;
}

/** `the top level`, `"hooks"`, `"hooks.SessionStart[0]"`: where a key sits, for a message. */
export function describeContainer(path: JSONPath): string {
  if (path.length === 0) return 'the top level';
  const spelled = path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
  return `"${spelled}"`;
}

/**
 * Sets the value at `path` (creating the objects on the way), inserts it into an array with
 * `isArrayInsertion`, or removes it when `value` is undefined. Returns the new text.
 */
export function setJsonValue(text: string, path: JSONPath, value: unknown, style: FormattingOptions, isArrayInsertion = false): string {
  if (value === undefined) return removeJsonValue(text, path);
  const edits = modify(text, path, value, { isArrayInsertion });
  // Last first, so the offsets of the earlier ones stay valid (modify gives one edit today).
  return [...edits].sort((a, b) => b.offset - a.offset).reduce((current, edit) => applyFormatted(current, edit, style), text);
}

/** Applies `edit` and formats the text it adds, nothing around it. */
function applyFormatted(text: string, edit: Edit, style: FormattingOptions): string {
  const added = applyEdits(text, [edit]);
  const start = edit.offset;
  const end = edit.offset + edit.content.length;
  // Into an empty object or array, the brackets are ours to space out as well: the line breaks
  // after the opening one and before the closing one go when the item goes again. After an item
  // of the file, only what falls inside the added text is ours.
  const intoEmpty = edit.length === 0 && !edit.content.startsWith(',');
  const range = intoEmpty ? { offset: start - 1, length: end - start + 2 } : { offset: start, length: end - start };
  const ours = format(added, range, { ...style, keepLines: false }).filter(
    (change) => change.offset >= start && change.offset + change.length <= end && (intoEmpty || change.offset < end),
  );
  return applyEdits(added, ours);
}

function removeJsonValue(text: string, path: JSONPath): string {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const node = root && findNodeAtLocation(root, path);
  if (!node?.parent) return text;
  // In an object the item is the property (key and value); in an array, the value itself.
  const item: Node = node.parent.type === 'property' ? node.parent : node;
  const container = item.parent;
  const siblings = container?.children ?? [];
  const index = siblings.indexOf(item);
  if (!container || index < 0) return text;
  const end = (at: Node) => at.offset + at.length;
  // What an insertion there adds: after a previous item, its comma and the item; as the first of
  // several, the item and the comma after it; as the only one, everything between the brackets.
  const [from, to] =
    index > 0
      ? [end(siblings[index - 1]!), end(item)]
      : siblings.length > 1
        ? [item.offset, siblings[1]!.offset]
        : [container.offset + 1, end(container) - 1];
  return text.slice(0, from) + text.slice(to);
}
