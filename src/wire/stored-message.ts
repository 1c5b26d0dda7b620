// A message read back from a snapshot, kept as the exact JSON bytes it was stored as until code looks
// into it. Contract: a stored message behaves as the plain object its bytes parse to (reads, keys,
// JSON.stringify, spreading), which it becomes on first use; until then serialize.ts, the one module
// that reads its bytes (storedJson), writes them as they are, and the pairing checks read its role and
// tool call ids (toolCallsOf), which are kept aside. Setting or deleting one of its properties drops
// the bytes; a change inside a nested object (a tool call) goes unseen, as it would by the
// serializer's cache: messages do not change once in a conversation, and their type is read-only
// (messages.ts). Two things see through the proxy: structuredClone refuses it (hel never clones
// messages), and Node's util.inspect prints its target, so console.log of one not yet parsed shows
// only its role.
//
// Why: messages built as objects and strings on the JS heap cost new memory on every load, which the
// collector then copies; kept as bytes, a resumed conversation's history is one buffer the load has
// already touched, and the first request after a resume copies those bytes instead of serializing
// every message (docs/measured.md).
import type { Message } from "./messages.js";

/** A tool call as the pairing checks see it: all they need of one, without its arguments. */
export interface CallRef {
  id: string;
  function: { name: string };
}

type Target = Record<string, unknown>;

/** A stored message's proxy handler, which is also where its bytes are. */
interface StoredHandler extends ProxyHandler<Target>, StoredJson {
  readonly calls: readonly CallRef[] | undefined;
  filled: boolean;
  changed: boolean;
}

// The key under which a stored message answers with its handler, and any other object with nothing.
// (A WeakMap from message to handler cost more than the rest of making a stored message.)
const HANDLER = Symbol("stored message");
const handlerOf = (message: Message): StoredHandler | undefined => (message as unknown as Record<symbol, StoredHandler | undefined>)[HANDLER];

function fill(handler: StoredHandler, target: Target): void {
  if (handler.filled) return;
  handler.filled = true;
  Object.assign(target, JSON.parse(handler.source.toString("utf8", handler.start, handler.end)));
}

// The traps, shared by every stored message. Each handler is an object literal rather than a class
// instance: V8 collects the maps of a class's instances once a load's messages are all gone, and
// with them the optimized load loop that had them built in, on every load after the first.
function get(this: StoredHandler, target: Target, key: string | symbol, receiver: unknown): unknown {
  if (key === HANDLER) return this;
  // role and tool_call_id are on the target from the start: the pairing checks and the session list
  // read them without parsing the message.
  if (!(key in target)) fill(this, target);
  return Reflect.get(target, key, receiver);
}
function has(this: StoredHandler, target: Target, key: string | symbol): boolean {
  fill(this, target);
  return Reflect.has(target, key);
}
function ownKeys(this: StoredHandler, target: Target): (string | symbol)[] {
  fill(this, target);
  return Reflect.ownKeys(target);
}
function getOwnPropertyDescriptor(this: StoredHandler, target: Target, key: string | symbol): PropertyDescriptor | undefined {
  fill(this, target);
  return Reflect.getOwnPropertyDescriptor(target, key);
}
function set(this: StoredHandler, target: Target, key: string | symbol, value: unknown, receiver: unknown): boolean {
  fill(this, target);
  this.changed = true;
  return Reflect.set(target, key, value, receiver);
}
function defineProperty(this: StoredHandler, target: Target, key: string | symbol, descriptor: PropertyDescriptor): boolean {
  fill(this, target);
  this.changed = true;
  return Reflect.defineProperty(target, key, descriptor);
}
function deleteProperty(this: StoredHandler, target: Target, key: string | symbol): boolean {
  fill(this, target);
  this.changed = true;
  return Reflect.deleteProperty(target, key);
}
function preventExtensions(this: StoredHandler, target: Target): boolean {
  fill(this, target);
  return Reflect.preventExtensions(target);
}

/**
 * The message whose JSON is `source[start, end)`, already parsed once as `parsed` (which is not kept).
 * The bytes must be valid UTF-8 and parse to exactly `parsed`: the caller has checked them.
 */
export function storedMessage(source: Buffer, start: number, end: number, parsed: Message): Message {
  // Whole literals too, for the same reason: properties added one by one are map transitions V8 drops.
  const target: Target = parsed.role === "tool" ? { role: parsed.role, tool_call_id: parsed.tool_call_id } : { role: parsed.role };
  const calls = parsed.role === "assistant" ? parsed.tool_calls?.map((c) => ({ id: c.id, function: { name: c.function.name } })) : undefined;
  const handler: StoredHandler = {
    source,
    start,
    end,
    calls,
    filled: false,
    changed: false,
    get,
    has,
    ownKeys,
    getOwnPropertyDescriptor,
    set,
    defineProperty,
    deleteProperty,
    preventExtensions,
  };
  return new Proxy(target, handler) as unknown as Message;
}

/** Where a stored message's JSON is: bytes `[start, end)` of `source`. */
export interface StoredJson {
  readonly source: Buffer;
  readonly start: number;
  readonly end: number;
}

/** The message's JSON as stored, for a message read from a snapshot and unchanged since; else undefined. */
export function storedJson(message: Message): StoredJson | undefined {
  const h = handlerOf(message);
  return h && !h.changed ? h : undefined;
}

/** The tool calls of an assistant message (ids and names), without parsing a stored one. */
export function toolCallsOf(message: Message): readonly CallRef[] | undefined {
  const h = handlerOf(message);
  if (h && !h.changed) return h.calls;
  return message.role === "assistant" ? message.tool_calls : undefined;
}
