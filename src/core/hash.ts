/**
 * 32-bit FNV-1a over UTF-16 code units, as 8 hex digits: stable across runs, machines and
 * versions. The one hash of the house. It is not node:crypto because src/core stays free of Node
 * built-ins, and because its values are kept on disk (the ledger's folder in workspace storage,
 * reflog cursors, checkpoint keys and the outbox's record of sent comments): another algorithm
 * would orphan them on upgrade. Nothing here needs a cryptographic hash.
 */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
