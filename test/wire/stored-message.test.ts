import { describe, expect, it } from "vitest";
import { buildRequest } from "../../src/agent/request.js";
import { childMessages } from "../../src/agent/children/child-messages.js";
import type { Message } from "../../src/wire/messages.js";
import { ByteWriter } from "../../src/wire/byte-writer.js";
import { jsonWithMessages, messageJson, requestBytes } from "../../src/wire/serialize.js";
import { storedJson, storedMessage, toolCallsOf } from "../../src/wire/stored-message.js";

// Messages laid out as a snapshot lays them out, each one's JSON at a known place in one buffer.
function stored(messages: Message[]): { source: Buffer; messages: Message[] } {
  const lines = messages.map((m) => JSON.stringify(m));
  const source = Buffer.from(`HEAD\n${lines.join(",\n")}\n]}\n`);
  let at = "HEAD\n".length;
  const out = messages.map((m, i) => {
    const start = at;
    const end = start + Buffer.byteLength(lines[i]!);
    at = end + 2;
    return storedMessage(source, start, end, m);
  });
  return { source, messages: out };
}

const call = (id: string, name: string) => ({ id, type: "function" as const, function: { name, arguments: `{"path":"${id}.ts"}` } });
const plain: Message[] = [
  { role: "system", content: "sys" },
  { role: "user", content: 'naïve — 日本語 😀 \u2028 "quotes" \\ end\nsecond line' },
  { role: "assistant", content: null, reasoning_content: "thinking", tool_calls: [call("c1", "read_file"), call("c2", "search_replace")] },
  { role: "tool", tool_call_id: "c1", content: "A" },
  { role: "tool", tool_call_id: "c2", content: "B" },
  { role: "assistant", content: "done" },
];

describe("a message kept as the bytes it was stored as", () => {
  it("behaves as the object its bytes parse to", () => {
    const { messages } = stored(plain);
    expect(messages).toEqual(plain);
    messages.forEach((m, i) => {
      expect(JSON.stringify(m)).toBe(JSON.stringify(plain[i]));
      expect({ ...m }).toEqual(plain[i]);
      expect(Object.keys(m)).toEqual(Object.keys(plain[i]!));
      expect("content" in m).toBe(true);
      expect(Object.hasOwn(m, "tool_calls")).toBe(plain[i]!.role === "assistant" && "tool_calls" in plain[i]!);
    });
  });

  it("is parsed only when looked into: role, tool_call_id and call ids come without parsing", () => {
    const { source, messages } = stored(plain);
    // Overwrite the bytes of the tool result "A" in place: only a parse after this sees it.
    const at = source.indexOf('"content":"A"');
    source.write('"content":"Z"', at);
    expect(messages[3]!.role).toBe("tool");
    expect((messages[3] as { tool_call_id: string }).tool_call_id).toBe("c1");
    expect(toolCallsOf(messages[2]!)).toEqual([
      { id: "c1", function: { name: "read_file" } },
      { id: "c2", function: { name: "search_replace" } },
    ]);
    expect(messages[3]!.content).toBe("Z");
  });

  it("goes into requests as its bytes, and a request is exactly JSON.stringify of the body", () => {
    const { source, messages } = stored(plain);
    const start = storedJson(messages[1]!)!;
    expect(start.source).toBe(source);
    expect(source.toString("utf8", start.start, start.end)).toBe(JSON.stringify(plain[1]));
    const body = buildRequest([...messages, { role: "user", content: "next" }], [], { model: "deepseek-flash", maxTokens: 100, effort: "high" });
    const expected = buildRequest([...plain, { role: "user", content: "next" }], [], { model: "deepseek-flash", maxTokens: 100, effort: "high" });
    expect(requestBytes(body).toString("utf8")).toBe(JSON.stringify(expected));
    expect(messageJson(messages[2]!)).toBe(JSON.stringify(plain[2]));
  });

  it("is written into any JSON that holds it without being parsed (a subagent transcript, say)", () => {
    const { source, messages } = stored(plain);
    const transcript = { number: 1, task: "t", messages: [...messages, { role: "user", content: "x" }] as Message[], answer: null };
    const expected = JSON.stringify({ ...transcript, messages: [...plain, { role: "user", content: "x" }] });
    expect(jsonWithMessages(transcript, new ByteWriter(Buffer.alloc(4))).toString("utf8")).toBe(expected);
    // Not parsed along the way: a parse now sees bytes changed after the write.
    source.write('"content":"Z"', source.indexOf('"content":"A"'));
    expect(messages[3]!.content).toBe("Z");
  });

  it("a change to it drops the bytes: requests and saves then carry what it holds", () => {
    const { messages } = stored(plain);
    (messages[1] as { content: string }).content = "changed";
    expect(storedJson(messages[1]!)).toBeUndefined();
    expect(messageJson(messages[1]!)).toBe(JSON.stringify({ role: "user", content: "changed" }));
    delete (messages[2] as { tool_calls?: unknown }).tool_calls;
    expect(toolCallsOf(messages[2]!)).toBeUndefined();
    // Untouched neighbours keep theirs.
    expect(storedJson(messages[3]!)).toBeDefined();
  });

  it("can be frozen like any object", () => {
    const { messages } = stored(plain);
    Object.freeze(messages[1]);
    expect(Object.isFrozen(messages[1])).toBe(true);
    expect(messages[1]!.content).toBe(plain[1]!.content);
  });

  it("tool call ids for pairing come from any message, stored or not", () => {
    expect(toolCallsOf(plain[2]!)).toBe((plain[2] as { tool_calls: unknown }).tool_calls);
    expect(toolCallsOf(plain[1]!)).toBeUndefined();
    expect(toolCallsOf(stored(plain).messages[5]!)).toBeUndefined();
  });

  it("a subagent's context is cut from stored messages as from plain ones, without parsing the calls it leaves out", () => {
    const { source, messages } = stored([...plain, { role: "user", content: "again" }, { role: "assistant", content: "", tool_calls: [call("c9", "delegate_task")] }]);
    // Break the JSON of the message with tool calls that no-tools mode drops: a parse of it would throw.
    const at = storedJson(messages[2]!)!;
    source.write("!", at.start);
    const noTools = childMessages(messages, "no-tools", "t");
    expect(noTools.slice(0, -1)).toEqual([plain[0], plain[1], plain[5], { role: "user", content: "again" }]);
    expect(() => JSON.stringify(messages[2])).toThrow(SyntaxError);
    const full = stored([...plain, { role: "user", content: "again" }, { role: "assistant", content: "", tool_calls: [call("c9", "delegate_task")] }]).messages;
    expect(childMessages(full, "full", "t").slice(0, -1)).toEqual([...plain, { role: "user", content: "again" }]);
  });
});
