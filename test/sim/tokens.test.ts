import { describe, expect, it } from "vitest";
import { countTokens, tokenEnds, tokenize, truncateToTokens } from "../../sim/tokens.js";
import { promptSegments, tokenizeSegments, assistantSegments, outputSegments, countSegments } from "../../sim/template.js";
import type { ChatRequest } from "../../src/wire/messages.js";

const PROSE = "The cache system works on a best-effort basis and does not guarantee a full hit rate. " + "Cache construction takes seconds, and once the cache is no longer in use it is cleared, usually within hours. ";

describe("token estimate", () => {
  it("pieces cover the text exactly and join back to it", () => {
    const text = 'const x = {"path": "src/a.ts", "n": 123456};\n\n  return  Helo, 世界！ 🎉 café\tend';
    const pieces = tokenize(text);
    expect(pieces.join("")).toBe(text);
    expect(pieces.every((p) => p.length > 0)).toBe(true);
    expect(pieces).toContain(" ret"); // " return" is cut every 4 characters
    expect(pieces).toContain(" ="); // one space joins the punctuation after it
    expect(pieces).toContain("🎉");
    expect(pieces).toContain("123");
    expect(pieces).toContain("456");
  });

  it("English prose is about 0.3 token per character", () => {
    const text = PROSE.repeat(20);
    const ratio = countTokens(text) / text.length;
    expect(ratio).toBeGreaterThan(0.24);
    expect(ratio).toBeLessThan(0.36);
  });

  it("Chinese is 0.6 token per character", () => {
    const text = "深度求索的上下文硬盘缓存技术".repeat(10); // 140 chars
    expect(countTokens(text)).toBe(84);
  });

  it("a text's tokens are a prefix of its extension's tokens (all but the last piece)", () => {
    const a = PROSE;
    const b = PROSE + "More words follow here.";
    const ta = tokenEnds(a);
    const tb = tokenEnds(b);
    expect(tb.slice(0, ta.length - 1)).toEqual(ta.slice(0, -1));
  });

  it("truncates at a token boundary", () => {
    const cut = truncateToTokens(PROSE, 5);
    expect(countTokens(cut)).toBe(5);
    expect(PROSE.startsWith(cut)).toBe(true);
    expect(truncateToTokens("short", 100)).toBe("short");
    expect(truncateToTokens("short", 0)).toBe("");
  });

  // How fast is the benchmark's to say (no timed assertions here): this one holds that a large mixed text is counted whole.
  it("counts a 1 MB request of prose, JSON and CJK as the sum of its repeated parts", () => {
    const part = PROSE + '{"k": [1, 2, 3], "s": "x\\ny"}\n' + "缓存命中";
    const text = part.repeat(5000);
    expect(text.length).toBeGreaterThan(1_000_000);
    const n = countTokens(text);
    expect(n).toBeGreaterThan(250_000);
    expect(Math.abs(n - 5000 * countTokens(part))).toBeLessThanOrEqual(5000);
  });
});

describe("prompt template", () => {
  const req = (messages: ChatRequest["messages"], tools?: ChatRequest["tools"]): ChatRequest => ({
    model: "deepseek-flash",
    messages,
    ...(tools ? { tools } : {}),
  });
  const tool = {
    type: "function" as const,
    function: { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: {} } },
  };

  it("puts system text, then the tool list, then the messages", () => {
    const text = tokenizeSegments(
      promptSegments(
        req(
          [
            { role: "system", content: "SYS" },
            { role: "user", content: "USR" },
          ],
          [tool],
        ),
      ),
    ).text;
    const s = text.indexOf("SYS");
    const t = text.indexOf('"read_file"');
    const u = text.indexOf("USR");
    expect(s).toBeGreaterThan(0);
    expect(t).toBeGreaterThan(s);
    expect(u).toBeGreaterThan(t);
    expect(text.endsWith("<｜Assistant｜>")).toBe(true);
  });

  it("an assistant turn serializes the same as output and as input, so output extends the prompt", () => {
    const call = { id: "call_00_x", type: "function" as const, function: { name: "read_file", arguments: '{"path":"a"}' } };
    const first = req([{ role: "user", content: "go" }], [tool]);
    const turn = { content: "Looking.", reasoning_content: "think first", tool_calls: [call] };
    const out = tokenizeSegments(promptSegments(first));
    tokenizeSegments(outputSegments(turn), out);
    const next = tokenizeSegments(
      promptSegments(
        req(
          [
            { role: "user", content: "go" },
            { role: "assistant", ...turn },
            { role: "tool", tool_call_id: "call_00_x", content: "data" },
          ],
          [tool],
        ),
      ),
    );
    expect(next.text.startsWith(out.text)).toBe(true);
    expect(next.ends.slice(0, out.ends.length)).toEqual(out.ends);
    expect(out.text).toContain("think first");
  });

  it("keeps reasoning only on tool-call turns, and treats '' and absent alike", () => {
    const final = assistantSegments({ content: "done", reasoning_content: "secret" });
    expect(final.map((s) => s.text).join("")).not.toContain("secret");
    const call = [{ function: { name: "f", arguments: "{}" } }];
    expect(assistantSegments({ content: null, reasoning_content: "", tool_calls: call })).toEqual(assistantSegments({ content: "", tool_calls: call }));
  });

  it("counts markers as one token each", () => {
    expect(countSegments([{ text: "<｜begin▁of▁sentence｜>", special: true }])).toBe(1);
    // BOS + "Hi" + User marker + "Hell"+"o"+"!" + Assistant marker
    const n = tokenizeSegments(
      promptSegments(
        req([
          { role: "system", content: "Hi" },
          { role: "user", content: "Hello!" },
        ]),
      ),
    ).ends.length;
    expect(n).toBe(1 + 1 + 1 + 3 + 1);
  });
});
