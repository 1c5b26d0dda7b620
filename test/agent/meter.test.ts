import { describe, expect, it } from "vitest";
import { estimateInputTokens, estimateTokens } from "../../src/agent/meter.js";
import { messageJson } from "../../src/wire/serialize.js";
import type { Message } from "../../src/wire/messages.js";

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
