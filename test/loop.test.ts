// The agent loop in-process, with the real model client against the simulator over HTTP.
import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { runTurn, type AgentRun } from "../src/agent/loop.js";
import type { AgentEvent } from "../src/agent/events.js";
import { createModelClient } from "../src/model/client.js";
import { startSimulator, type Simulator } from "../sim/index.js";
import { toolDefinitions } from "../src/tools/registry.js";
import { CursorStore } from "../src/tools/cursors.js";
import type { Tool } from "../src/tools/types.js";
import type { Message } from "../src/wire/messages.js";

let sim: Simulator;
afterEach(async () => sim?.close());

it("an abort during tool calls answers every remaining call, so the conversation stays valid", async () => {
  const controller = new AbortController();
  const ran: string[] = [];
  const note: Tool<{ text: string }> = {
    name: "note",
    description: "Record a note.",
    schema: z.object({ text: z.string() }),
    spill: false,
    run: async ({ text }) => {
      ran.push(text);
      if (text === "first") controller.abort();
      return `noted ${text}`;
    },
  };
  sim = await startSimulator({
    script: [{ tool_calls: ["first", "second", "third"].map((text) => ({ name: "note", arguments: JSON.stringify({ text }) })) }],
  });
  const client = createModelClient({ baseURL: sim.url, apiKey: "sk-test" });
  const events: AgentEvent[] = [];
  const run: AgentRun = {
    ref: { agent: "parent" },
    client,
    tools: [note],
    toolDefinitions: toolDefinitions([note]),
    toolContext: { projectDir: "/nonexistent", access: "edit", sessionDir: "/nonexistent/.hel/sessions/x", cursors: new CursorStore() },
    request: { model: "deepseek-flash", maxTokens: 1000, effort: "none" },
    maxSteps: 5,
    emit: (e) => events.push(e),
  };
  const messages: Message[] = [{ role: "system", content: "s" }, { role: "user", content: "take notes" }];
  const outcome = await runTurn(messages, run, controller.signal);
  await client.close();

  expect(outcome.exitReason).toBe("aborted");
  expect(ran).toEqual(["first"]);
  const assistant = messages[2] as Extract<Message, { role: "assistant" }>;
  const ids = assistant.tool_calls!.map((c) => c.id);
  expect(messages.slice(3)).toEqual([
    { role: "tool", tool_call_id: ids[0], content: "noted first" },
    { role: "tool", tool_call_id: ids[1], content: expect.stringMatching(/^Error: the user interrupted before this tool call ran/) },
    { role: "tool", tool_call_id: ids[2], content: expect.stringMatching(/^Error: the user interrupted/) },
  ]);
  // One event stream: request, response, the one tool that ran, then the end of the turn.
  expect(events.map((e) => e.type)).toEqual(["request", "response", "tool_start", "tool_end", "turn_end"]);
  expect(sim.requests).toHaveLength(1);
});
