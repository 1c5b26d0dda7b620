import { describe, expect, it } from "vitest";
import { estimateInputTokens, estimateRequestTokens, estimateTokens } from "../../src/agent/meter.js";
import { messageJson } from "../../src/wire/serialize.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { runInProcess } from "../helpers/conversation.js";
import { simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

describe("meter", () => {
  it("estimates 0.3 token per English character and 0.6 per Chinese character", () => {
    expect(estimateTokens("a".repeat(100))).toBe(30);
    expect(estimateTokens("中".repeat(100))).toBe(60);
    expect(estimateTokens("")).toBe(0);
  });

  it("measures what the last request sent and estimates only the messages added since", () => {
    const messages: Message[] = [
      { role: "system", content: "s" },
      { role: "user", content: "question" },
      { role: "assistant", content: "an answer of some length" },
      { role: "user", content: "next" },
    ];
    const added = estimateTokens(messageJson(messages[2]!)) + estimateTokens(messageJson(messages[3]!));
    expect(estimateInputTokens({ message_count: 2, input_tokens: 1000 }, messages)).toBe(1000 + added);
    expect(estimateInputTokens({ message_count: 4, input_tokens: 1234 }, messages)).toBe(1234);
    // No measurement yet (a new session, or one whose meter was reset): all estimated.
    expect(estimateInputTokens(null, messages)).toBe(messages.reduce((t, m) => t + estimateTokens(messageJson(m)), 0));
  });
});

describe("the estimate before a request", () => {
  const sim = simulators();
  it("of a run's first request with the default tools is within 10% of the simulator's count of it, tool definitions included", async () => {
    const dir = await tempProject();
    const s = await sim({ script: [{ content: "done" }] });
    const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "say done"], baseUrl: s.url });
    expect(run.code).toBe(0);
    const first = s.requests[0]!;
    const body = first.body as ChatRequest;
    expect(body.tools!.length).toBeGreaterThan(3);
    const counted = first.usage!.prompt_tokens;
    const estimated = estimateRequestTokens(null, body.messages, body.tools!);
    expect(Math.abs(estimated - counted) / counted).toBeLessThan(0.1);
  });
});
