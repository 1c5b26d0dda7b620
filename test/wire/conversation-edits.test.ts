// A message, once in the conversation, cannot change: the compiler refuses an edit (checked by
// `tsc -p tsconfig.dev.json`, which `npm test` runs first), and a span of the conversation is
// replaced by a pure function that returns a new list.
import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message } from "../../src/wire/messages.js";
import { replaceSpan } from "../../src/wire/conversation-edits.js";
import { requestBytes, messageJson } from "../../src/wire/serialize.js";
import { storedJson, storedMessage } from "../../src/wire/stored-message.js";
import { buildRequest } from "../../src/agent/request.js";

const call = (id: string) => ({ id, type: "function" as const, function: { name: "read_file", arguments: `{"path":"${id}.ts"}` } });
const conversation = (): Message[] => [
  { role: "system", content: "sys" },
  { role: "user", content: "read a and b" },
  { role: "assistant", content: null, reasoning_content: "r", tool_calls: [call("a"), call("b")] },
  { role: "tool", tool_call_id: "a", content: "A" },
  { role: "tool", tool_call_id: "b", content: "B" },
  { role: "assistant", content: "read both" },
  { role: "user", content: "now c" },
  { role: "assistant", content: null, reasoning_content: "r", tool_calls: [call("c")] },
  { role: "tool", tool_call_id: "c", content: "C" },
  { role: "assistant", content: "done" },
];

/** Freezes the list and every object in it, so any write into it throws (ES modules are strict). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("a message in the conversation", () => {
  it("cannot be edited at any depth: the compiler refuses each edit the JSON cache would not send", () => {
    const messages = conversation();
    const assistant = messages[2] as AssistantMessage;
    const before = messageJson(assistant);
    // Each line below is a compile error; `tsc` fails on an @ts-expect-error that has none.
    const edits = (m: AssistantMessage, list: Message[]): void => {
      // @ts-expect-error the message
      m.content = "edited";
      // @ts-expect-error its tool calls
      m.tool_calls!.push(call("z"));
      // @ts-expect-error one call
      m.tool_calls![0]!.id = "z";
      // @ts-expect-error a call's function
      m.tool_calls![0]!.function.arguments = "{}";
      // @ts-expect-error a message of the list, reached by index
      list[1]!.content = "edited";
    };
    // Were they allowed, the next request would still carry the message as it was first serialized.
    edits(assistant, messages);
    expect(assistant.content).toBe("edited");
    expect(messageJson(assistant)).toBe(before);
    expect(requestBytes(buildRequest(messages.slice(0, 3), [], { model: "m", maxTokens: 1, effort: "none" })).toString()).toContain(before);
  });
});

describe("replaceSpan", () => {
  it("returns a new list with the span replaced, and leaves the old list and its messages as they were", () => {
    const messages = deepFreeze(conversation());
    const snapshot = JSON.stringify(messages);
    const summary: Message = { role: "user", content: "[compacted] the user asked for a and b; both were read" };
    const next = replaceSpan(messages, 1, 6, [summary]);
    expect(next).toEqual([messages[0], summary, ...messages.slice(6)]);
    // Untouched messages are the same objects, so their cached JSON (or stored bytes) is reused.
    expect(next[0]).toBe(messages[0]);
    expect(next.slice(2).every((m, i) => m === messages[6 + i])).toBe(true);
    expect(next).not.toBe(messages);
    expect(JSON.stringify(messages)).toBe(snapshot);
  });

  it("inserts with an empty span, removes with an empty replacement", () => {
    const messages = deepFreeze(conversation());
    const note: Message = { role: "user", content: "note" };
    expect(replaceSpan(messages, 6, 6, [note])).toEqual([...messages.slice(0, 6), note, ...messages.slice(6)]);
    expect(replaceSpan(messages, 6, 10, [])).toEqual(messages.slice(0, 6));
    expect(replaceSpan(messages, 0, 0, [])).toEqual(messages);
  });

  it("refuses a change that separates a tool call from its results, and changes nothing", () => {
    const messages = deepFreeze(conversation());
    const snapshot = JSON.stringify(messages);
    // The span ends between the call and its results: they would answer nothing.
    expect(() => replaceSpan(messages, 1, 3, [])).toThrow("replacing messages[1, 3) would break the conversation: in the new one, the tool result in messages[1] answers no tool call (tool_call_id a)");
    // The span starts among the results: the call would lose one of them.
    expect(() => replaceSpan(messages, 4, 6, [])).toThrow("in the new one, tool call b (read_file) in messages[2] has no result");
    // The replacement has a call whose result does not follow it.
    const unanswered: Message = { role: "assistant", content: null, reasoning_content: "", tool_calls: [call("x")] };
    expect(() => replaceSpan(messages, 6, 10, [unanswered])).toThrow("in the new one, tool call x (read_file) in messages[6] has no result");
    // A replacement that brings its own results is fine.
    expect(replaceSpan(messages, 6, 10, [unanswered, { role: "tool", tool_call_id: "x", content: "X" }])).toHaveLength(8);
    expect(JSON.stringify(messages)).toBe(snapshot);
  });

  it("refuses a span that is not in the list", () => {
    const messages = conversation();
    for (const [start, end] of [
      [-1, 2],
      [3, 2],
      [0, 11],
      [0.5, 2],
    ] as const) {
      expect(() => replaceSpan(messages, start, end, [])).toThrow(RangeError);
    }
  });

  it("keeps messages read from a snapshot as their stored bytes, unparsed", () => {
    const plain = conversation();
    const lines = plain.map((m) => JSON.stringify(m));
    const source = Buffer.from(lines.join("\n"));
    let at = 0;
    const messages = plain.map((m, i) => {
      const message = storedMessage(source, at, at + Buffer.byteLength(lines[i]!), m);
      at += Buffer.byteLength(lines[i]!) + 1;
      return message;
    });
    const next = replaceSpan(messages, 6, 10, []);
    expect(next.every((m) => storedJson(m) !== undefined)).toBe(true);
    // Bytes changed behind a message's back show that replaceSpan did not parse it: a parse reads them now.
    source.write('"content":"Z"', source.indexOf('"content":"A"'));
    expect(next[3]!.content).toBe("Z");
  });
});
