// The MCP server's standard input, one message a line (the MCP stdio binding), with a size limit
// that answers instead of hanging up. The SDK's stdio transport closes the whole connection when a
// line outgrows its read buffer (10 MiB), so one oversized request left the server answering
// nothing for the rest of the session. Here a line over the limit is skipped as it streams in
// (never held whole), its request gets a JSON-RPC error naming the limit, and every line after it
// is served as before. Hand-written: a line splitter from npm (split2, readline) either holds the
// whole line or ends the stream at its limit, and neither says which request to answer.
import { Transform, type TransformCallback } from 'node:stream';

/** The largest message the server reads: the SDK's own read buffer size, so what it would refuse is refused here first, with an answer. */
export const MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** How much of an oversized line is kept to find the request's id: JSON-RPC clients put it before the params. */
const ID_SEARCH_BYTES = 4096;
const NEWLINE = 0x0a;
/** JSON-RPC 2.0: the JSON sent is not a valid Request object. */
const INVALID_REQUEST = -32600;

export interface OversizedMessage {
  /** The request's id when its first bytes name one before its params; null otherwise (JSON-RPC's "could not be detected"). */
  id: string | number | null;
  bytes: number;
}

export interface LimitedLines {
  /** The lines within the limit, each with its newline, to hand to the SDK's transport. */
  stream: Transform;
  /** True once standard input ended: the client closed the session. */
  readonly ended: boolean;
}

/**
 * Passes each line of `limit` bytes or less on whole; for a longer one calls `oversized` once,
 * when its end arrives (or standard input ends), and passes nothing of it on.
 */
export function limitLines(oversized: (message: OversizedMessage) => void, limit = MCP_MAX_MESSAGE_BYTES): LimitedLines {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // While skipping an oversized line: its first bytes (for the id) and its length so far.
  let skipping: { head: Buffer; bytes: number } | undefined;
  let ended = false;

  const startSkipping = (parts: Buffer[], bytes: number) => {
    skipping = { head: Buffer.concat(parts).subarray(0, ID_SEARCH_BYTES), bytes };
    pending = [];
    pendingBytes = 0;
  };
  const endSkipping = () => {
    if (!skipping) return;
    oversized({ id: requestIdIn(skipping.head.toString('utf8')), bytes: skipping.bytes });
    skipping = undefined;
  };

  const stream = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let rest = chunk;
      while (rest.length > 0) {
        const newline = rest.indexOf(NEWLINE);
        const part = newline < 0 ? rest : rest.subarray(0, newline);
        rest = newline < 0 ? Buffer.alloc(0) : rest.subarray(newline + 1);
        if (skipping) {
          if (skipping.head.length < ID_SEARCH_BYTES) skipping.head = Buffer.concat([skipping.head, part]).subarray(0, ID_SEARCH_BYTES);
          skipping.bytes += part.length;
        } else if (pendingBytes + part.length > limit) startSkipping([...pending, part], pendingBytes + part.length);
        else {
          pending.push(part);
          pendingBytes += part.length;
        }
        if (newline < 0) break;
        if (skipping) endSkipping();
        else {
          this.push(Buffer.concat([...pending, Buffer.from('\n')]));
          pending = [];
          pendingBytes = 0;
        }
      }
      done();
    },
    flush(done: TransformCallback) {
      ended = true;
      endSkipping();
      if (pendingBytes > 0) this.push(Buffer.concat(pending));
      done();
    },
  });
  return {
    stream,
    get ended() {
      return ended;
    },
  };
}

/** The JSON-RPC error answering an oversized message: what happened, the limit, and that nothing else was lost. */
export function oversizedAnswer(message: OversizedMessage, limit = MCP_MAX_MESSAGE_BYTES): { jsonrpc: '2.0'; id?: string | number; error: { code: number; message: string } } {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return {
    jsonrpc: '2.0',
    // JSON-RPC says null for an id that could not be read; the SDK's type leaves it out instead.
    ...(message.id === null ? {} : { id: message.id }),
    error: {
      code: INVALID_REQUEST,
      message: `Message too large: ${mib(message.bytes)}, over this server's limit of ${mib(limit)}; it was not read. The server goes on serving; send less (a checkpoint summary is at most 2000 characters).`,
    },
  };
}

/** The top-level `"id"` of a JSON-RPC message from its first bytes, when it comes before `"params"`. */
function requestIdIn(head: string): string | number | null {
  const params = head.indexOf('"params"');
  const match = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/.exec(params < 0 ? head : head.slice(0, params));
  if (!match?.[1]) return null;
  try {
    const id: unknown = JSON.parse(match[1]);
    return typeof id === 'number' || typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
