// The request body's bytes, exactly those of `JSON.stringify(body)`, without re-serializing the
// conversation on every request: a message never changes once it is in the conversation, so its JSON
// is computed once and reused by every later request (and by the snapshot, see session/snapshot.ts).
// Without this a 1,000-message conversation cost ~15 ms of serialization per model turn, growing
// with every turn.
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
 * The body as UTF-8 bytes, in memory of its own: parallel subagents have several requests in flight,
 * and each body must stay intact until its socket has sent it.
 */
export function requestBytes(body: ChatRequest): Buffer {
  return jsonWithMessages(body, new ByteWriter());
}

/**
 * Exactly `JSON.stringify(value)` as UTF-8, written into `into` (reset first; the result is a view of
 * it): the messages from their cached JSON or stored bytes, and a tool list from its cached JSON.
 */
export function jsonWithMessages(value: { messages: readonly Message[]; tools?: readonly ToolDefinition[] }, into: ByteWriter): Buffer {
  const skeleton = JSON.stringify({ ...value, messages: MESSAGES_MARK, ...(value.tools ? { tools: TOOLS_MARK } : {}) });
  into.reset();
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

function writeMessages(into: ByteWriter, messages: readonly Message[]): void {
  into.put("[");
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) into.put(",");
    writeMessage(into, messages[i]!);
  }
  into.put("]");
}

/** Appends the message's JSON: a stored message's bytes as they are, any other's cached text. */
export function writeMessage(into: ByteWriter, message: Message): void {
  const stored = storedJson(message);
  if (stored) into.putBytes(stored.source, stored.start, stored.end);
  else into.put(messageJson(message));
}
