import { describe, expect, it } from "vitest";
import { StreamAccumulator } from "../../src/model/stream-accumulator.js";

describe("StreamAccumulator", () => {
  it("joins content, reasoning and tool-call fragments by index, and keeps the usage", () => {
    const acc = new StreamAccumulator();
    acc.push({ choices: [{ delta: { content: null, reasoning_content: "" } }] });
    expect(acc.started).toBe(false);
    acc.push({ choices: [{ delta: { reasoning_content: "think " } }] });
    acc.push({ choices: [{ delta: { reasoning_content: "more" } }] });
    acc.push({ choices: [{ delta: { content: "Let me " } }] });
    acc.push({ choices: [{ delta: { content: "look." } }] });
    acc.push({ choices: [{ delta: { tool_calls: [{ index: 0, id: "call_00_a", type: "function", function: { name: "read_file", arguments: "" } }] } }] });
    acc.push({ choices: [{ delta: { tool_calls: [{ index: 1, id: "call_01_b", type: "function", function: { name: "read_file", arguments: '{"pa' } }] } }] });
    acc.push({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] } }] });
    acc.push({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] } }] });
    acc.push({ choices: [{ delta: { tool_calls: [{ index: 1, function: { arguments: 'th":"b"}' } }] } }] });
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10, completion_tokens_details: { reasoning_tokens: 2 } };
    acc.push({ choices: [{ delta: { content: "" }, finish_reason: "tool_calls" }], usage });
    const result = acc.result();
    expect(result.finishReason).toBe("tool_calls");
    expect(result.usage).toEqual(usage);
    expect(result.message).toEqual({
      role: "assistant",
      content: "Let me look.",
      reasoning_content: "think more",
      tool_calls: [
        { id: "call_00_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
        { id: "call_01_b", type: "function", function: { name: "read_file", arguments: '{"path":"b"}' } },
      ],
    });
  });

  it("gives a tool-call turn an empty reasoning_content when none was streamed", () => {
    const acc = new StreamAccumulator();
    acc.push({ choices: [{ delta: { tool_calls: [{ index: 0, id: "x", function: { name: "read_file", arguments: "{}" } }] }, finish_reason: "tool_calls" }] });
    expect(acc.result().message.reasoning_content).toBe("");
  });

  it("gives each repeat of an id within a message an id of its own, unlike any other of the message", () => {
    const acc = new StreamAccumulator();
    for (const [index, id] of ["a", "a", "a", "a_02_hel", ""].entries()) {
      acc.push({ choices: [{ delta: { tool_calls: [{ index, id, function: { name: "read_file", arguments: "{}" } }] } }] });
    }
    expect(acc.result().message.tool_calls!.map((c) => c.id)).toEqual(["a", "a_01_hel", "a_02_hel", "a_02_hel_03_hel", "call_04_hel"]);
  });

  it("reports no finish reason for a stream that ended early", () => {
    const acc = new StreamAccumulator();
    acc.push({ choices: [{ delta: { content: "partial" } }] });
    expect(acc.result().finishReason).toBeNull();
    expect(acc.started).toBe(true);
  });
});
