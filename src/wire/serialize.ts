// Messages as JSON bytes, the one place that knows how a message's JSON is kept: computed once and
// cached (a message never changes once it is in the conversation), or, for a message read from a
// snapshot, the bytes it was read as (stored-message.ts). Contract: every output is exactly
// `JSON.stringify` of its input as UTF-8. A request body is written into memory its caller owns
// (requestBytes); a snapshot is written from pieces, the stored bytes among them uncopied
// (messagePieces). Without the cache every model turn would serialize the whole conversation again.
import { ByteWriter } from "./byte-writer.js";
import type { ChatRequest, Message, ToolDefinition } from "./messages.js";
import { storedJson } from "./stored-message.js";

const messageJsonCache = new WeakMap<object, string>();
const toolsJsonCache = new WeakMap<object, string>();
// Stand-ins for the two long lists while the small rest of the body is stringified; a NUL byte never
// comes out of JSON.stringify unescaped, so the markers cannot collide with real content.
const MESSAGES_MARK = "\u0000hel-messages\u0000";
const TOOLS_MARK = "\u0000hel-tools\u0000";
const MESSAGES = JSON.stringify(MESSAGES_MARK);
const TOOLS = JSON.stringify(TOOLS_MARK);

/** The message's JSON text. A message read from a snapshot is decoded from its bytes, not cached. */
export function messageJson(message: Message): string {
  const stored = storedJson(message);
  if (stored) return stored.source.toString("utf8", stored.start, stored.end);
  let json = messageJsonCache.get(message);
  if (json === undefined) {
    json = JSON.stringify(message);
    messageJsonCache.set(message, json);
  }
  return json;
}

function toolsJson(tools: readonly ToolDefinition[]): string {
  let json = toolsJsonCache.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools);
    toolsJsonCache.set(tools, json);
  }
  return json;
}

/**
 * The body as UTF-8 bytes, written into `into` (reset first; the result is a view of it): the caller
 * that owns the writer owns the bytes, to send, retry with and record while other requests are
 * serialized and sent, until it resets the writer or hands it on.
 */
export function requestBytes(body: ChatRequest, into: ByteWriter = new ByteWriter()): Buffer {
  return jsonWithMessages(body, into);
}

/**
 * Exactly `JSON.stringify(value)` as UTF-8, written into `into` (reset first; the result is a view of
 * it): the messages from their cached JSON or stored bytes, and a tool list from its cached JSON.
 */
export function jsonWithMessages(value: { messages: readonly Message[]; tools?: readonly ToolDefinition[] }, into: ByteWriter): Buffer {
  const skeleton = JSON.stringify({ ...value, messages: MESSAGES_MARK, ...(value.tools ? { tools: TOOLS_MARK } : {}) });
  into.reset();
  into.reserve(skeleton.length + (value.tools ? toolsJson(value.tools).length : 0) + messagesLength(value.messages));
  let rest = skeleton;
  for (const [marker, write] of [
    [MESSAGES, () => writeMessages(into, value.messages)],
    [TOOLS, () => into.put(toolsJson(value.tools!))],
  ] as const) {
    const at = rest.indexOf(marker);
    if (at < 0) continue;
    into.put(rest.slice(0, at));
    write();
    rest = rest.slice(at + marker.length);
  }
  into.put(rest);
  return into.bytes();
}

/** The messages' JSON length in bytes, or a little less (text counted in UTF-16 units). */
function messagesLength(messages: readonly Message[]): number {
  let length = messages.length + 2;
  for (const message of messages) {
    const stored = storedJson(message);
    length += stored ? stored.end - stored.start : messageJson(message).length;
  }
  return length;
}

function writeMessages(into: ByteWriter, messages: readonly Message[]): void {
  into.put("[");
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) into.put(",");
    writeMessage(into, messages[i]!);
  }
  into.put("]");
}

/** Appends the message's JSON: a stored message's bytes as they are, any other's cached text. */
function writeMessage(into: ByteWriter, message: Message): void {
  const stored = storedJson(message);
  if (stored) into.putBytes(stored.source, stored.start, stored.end);
  else into.put(messageJson(message));
}

// Each view of stored bytes made here → the Buffer it views: whoever read those bytes may reuse
// their memory once that Buffer is unreachable (session/store.ts does), and a piece may outlive the
// messages it was written from (a save still writing after compaction dropped them).
const viewed = new WeakMap<Buffer, Buffer>();

/**
 * `head`, the messages' JSON with `separator` between them, then `tail`, as pieces to be written one
 * after another: the text is written into `into` (reset first), and the messages read from a snapshot
 * are views of the bytes they were read as, uncopied, which hold those bytes as the messages do.
 * Stored messages that lie one after another in the same bytes with exactly `separator` between them
 * (a snapshot read back, saved in the layout it was read in) are one view. The pieces are valid until
 * `into` is reset.
 */
export function messagePieces(into: ByteWriter, head: string, messages: readonly Message[], separator: string, tail: string): Buffer[] {
  const pieces: Buffer[] = [];
  let written = 0;
  // The text written since the last piece, as a piece.
  const flush = (): void => {
    const { bytes, end } = into.since(written);
    if (bytes.length > 0) pieces.push(bytes);
    written = end;
  };
  const sep = Buffer.from(separator);
  // A run of stored messages that lie one after another in the same bytes, `separator` between them.
  let run: { source: Buffer; start: number; end: number } | null = null;
  const endRun = (): void => {
    if (!run) return;
    const piece = run.source.subarray(run.start, run.end);
    viewed.set(piece, run.source);
    pieces.push(piece);
    run = null;
  };
  into.reset();
  into.put(head);
  for (let i = 0; i < messages.length; i++) {
    const stored = storedJson(messages[i]!);
    if (stored && run && stored.source === run.source && stored.start - run.end === sep.length && sep.compare(run.source, run.end, stored.start) === 0) {
      run.end = stored.end;
      continue;
    }
    endRun();
    if (i > 0) into.put(separator);
    if (stored) {
      flush();
      run = { source: stored.source, start: stored.start, end: stored.end };
    } else {
      writeMessage(into, messages[i]!);
    }
  }
  endRun();
  into.put(tail);
  flush();
  return pieces;
}
