import { describe, expect, it } from "vitest";
import { buildRequest } from "../../src/agent/request.js";
import { requestBytes } from "../../src/wire/serialize.js";
import type { Message, ToolDefinition } from "../../src/wire/messages.js";

const tools: ToolDefinition[] = [{ type: "function", function: { name: "read_file", description: 'Reads "files"\n\u0000', parameters: { type: "object" } } }];

describe("requestBytes", () => {
  it("is exactly JSON.stringify of the body, turn after turn, with awkward content", () => {
    const messages: Message[] = [{ role: "system", content: 'sys \u2028 "quoted" \\ é 😀' }];
    for (let turn = 0; turn < 5; turn++) {
      messages.push({ role: "user", content: `question ${turn} "${"\u0000".repeat(turn)}"` });
      messages.push({ role: "assistant", content: "", reasoning_content: "r", tool_calls: [{ id: `c${turn}`, type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }] });
      messages.push({ role: "tool", tool_call_id: `c${turn}`, content: "\u0000hel-messages\u0000 is just text here" });
      for (const effort of ["none", "high"] as const) {
        const body = buildRequest(messages, turn % 2 ? tools : [], { model: "deepseek-flash", maxTokens: 100, effort });
        expect(requestBytes(body).toString("utf8")).toBe(JSON.stringify(body));
      }
    }
  });
});
