// A child's budgets, with an in-process model (helpers/fake-model.ts) and through a whole conversation
// opened in this process against the simulator (helpers/conversation.ts): the step budget
// (--child-max-steps, or a smaller max_steps of the call) and the token budget (--child-max-tokens) stop
// a child after the request that reached them, every tool call answered, and the parent's result holds
// the child's last text and one line naming the budget. A max_steps above the budget or below 1 starts
// no child.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChildBudget } from "../../../src/agent/children/child-budget.js";
import { createChildren } from "../../../src/agent/children/children.js";
import type { ChildTranscript } from "../../../src/agent/children/child-transcript.js";
import { createDelegateTool } from "../../../src/agent/children/delegate-tool.js";
import type { AgentEvent } from "../../../src/agent/events.js";
import { runTurn, type AgentSetup, type AgentToolContext } from "../../../src/agent/loop/loop.js";
import { StampCounter } from "../../../src/agent/stamps.js";
import { detachedScope } from "../../../src/tools/detached-context.js";
import { executeToolCall, toolDefinitions } from "../../../src/tools/registry.js";
import { noReports, type Tool } from "../../../src/tools/types.js";
import type { AssistantMessage, ChatRequest, Message } from "../../../src/wire/messages.js";
import { startSimulator, type Simulator } from "../../../sim/index.js";
import { fakeModel, toolCall, usage, type FakeTurn } from "../../helpers/fake-model.js";
import { runInProcess } from "../../helpers/conversation.js";
import { tempProject } from "../../helpers/temp-project.js";

const SYSTEM: Message = { role: "system", content: "You are hel." };
const USER: Message = { role: "user", content: "look around" };

const note: Tool<{ text: string }> = {
  name: "note",
  description: "Record a note.",
  schema: z.object({ text: z.string() }),
  spill: false,
  run: async ({ text }) => `noted ${text}`,
};
const notes = (content: string | null, ...texts: string[]): AssistantMessage => ({
  role: "assistant",
  content,
  tool_calls: texts.map((text) => toolCall(`call_${text}`, "note", { text })),
});

/** The parent calls delegate_task with `args`; the child is played by `script`. */
async function delegate(args: object, script: FakeTurn[], budget: ChildBudget) {
  const model = fakeModel(script);
  const events: AgentEvent[] = [];
  const transcripts: Omit<ChildTranscript, "cost_usd">[] = [];
  const ctx = detachedScope("/nonexistent", "edit", "x");
  const call = toolCall("call_d", "delegate_task", args);
  const parent: Message[] = [SYSTEM, USER, { role: "assistant", content: null, tool_calls: [call] }];
  const children = createChildren({ emit: (event) => events.push(event), budget, saveTranscript: async (t) => void transcripts.push(t) });
  const tools: Tool[] = [note as Tool, createDelegateTool({ mode: "task-only", parentMessages: () => parent, children }) as Tool];
  // The parent's run, as the loop hands it to the call that starts the child.
  const agent: AgentSetup = {
    ref: { agent: "parent" },
    client: model,
    tools,
    toolDefinitions: toolDefinitions(tools),
    toolContext: ctx,
    request: { model: "deepseek-flash", maxTokens: 1000, effort: "none" },
    maxSteps: 10,
    emit: (event) => events.push(event),
    stamps: new StampCounter(),
  };
  const context: AgentToolContext = { ...ctx, signal: new AbortController().signal, report: noReports, agent };
  const result = await executeToolCall(call, tools, context);
  return { result, model, events, transcripts };
}

describe("the step budget", () => {
  it("of --child-max-steps stops the child after that many requests; the parent gets its last text and the budget's line", async () => {
    const { result, model, transcripts } = await delegate(
      { task: "note everything" },
      [{ message: notes(null, "a") }, { message: notes("Noted a; b is next.", "b") }, { message: { role: "assistant", content: "never sent" } }],
      { maxSteps: 2, maxTokens: null },
    );
    expect(model.bodies).toHaveLength(2);
    expect(result).toEqual({
      content: "Noted a; b is next.\n\n[the subagent was stopped by its step budget of 2 model requests (--child-max-steps) before it finished]",
      isError: false,
    });
    // Every call the child made has its result, the last one's included.
    expect(transcripts[0]!.messages.slice(-2)).toEqual([notes("Noted a; b is next.", "b"), { role: "tool", tool_call_id: "call_b", content: "[#3] noted b" }]);
    expect(transcripts[0]).toMatchObject({ number: 1, kind: "delegate", mode: "task-only", answer: null, exit_reason: "max_steps", usage: { requests: 2 } });
  });

  it("of the call's max_steps, when smaller, stops it sooner and is the budget named", async () => {
    const { result, model } = await delegate({ task: "note everything", max_steps: 1 }, [{ message: notes(null, "a") }, { message: notes(null, "b") }], {
      maxSteps: 3,
      maxTokens: null,
    });
    expect(model.bodies).toHaveLength(1);
    expect(result.content).toBe("(the subagent wrote no text before it was stopped)\n\n[the subagent was stopped by its step budget of 1 model request (the max_steps of this call) before it finished]");
  });

  it("a max_steps above the budget is an error result and starts no child", async () => {
    const { result, model, events, transcripts } = await delegate({ task: "note everything", max_steps: 5 }, [], { maxSteps: 3, maxTokens: null });
    expect(result).toEqual({
      content: "Error: max_steps 5 is more than a subagent's budget of 3 model requests (--child-max-steps); no subagent was started. Call delegate_task again with max_steps 3 or less, or without max_steps.",
      isError: true,
    });
    expect(model.bodies).toHaveLength(0);
    expect(events).toEqual([]);
    expect(transcripts).toEqual([]);
  });

  it.each([0, -2, 1.5])("a max_steps of %s is an error result naming the argument, and starts no child", async (maxSteps) => {
    const { result, model, events } = await delegate({ task: "note everything", max_steps: maxSteps }, [], { maxSteps: 3, maxTokens: null });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error: invalid arguments for delegate_task:\n- max_steps: max_steps must be (at least 1|a whole number)\n/);
    expect(model.bodies).toHaveLength(0);
    expect(events).toEqual([]);
  });

  it("a child that answers within its budget returns just its answer", async () => {
    const { result } = await delegate({ task: "say hi", max_steps: 2 }, [{ message: notes(null, "a") }, { message: { role: "assistant", content: "hi" } }], {
      maxSteps: 2,
      maxTokens: null,
    });
    expect(result).toEqual({ content: "hi", isError: false });
  });
});

describe("the token budget", () => {
  it("in the loop: checked before each request, so the turn ends with token_budget once reached, and not before", async () => {
    const model = fakeModel([
      { message: notes(null, "a"), usage: usage(60, 39, 0) },
      { message: notes(null, "b"), usage: usage(1, 0, 0) },
      { message: notes(null, "c"), usage: usage(1, 0, 0) },
    ]);
    const events: AgentEvent[] = [];
    const messages: Message[] = [SYSTEM, USER];
    const outcome = await runTurn(
      messages,
      {
        ref: { agent: "child", delegation: 1 },
        client: model,
        tools: [note as Tool],
        toolDefinitions: toolDefinitions([note as Tool]),
        toolContext: detachedScope("/nonexistent", "edit", "x"),
        request: { model: "deepseek-flash", maxTokens: 1000, effort: "none" },
        maxSteps: 10,
        maxTokens: 100,
        emit: (event) => events.push(event),
        stamps: new StampCounter(),
      },
      new AbortController().signal,
    );
    // 99 tokens after the first request (under 100), 100 after the second: no third.
    expect(model.bodies).toHaveLength(2);
    expect(outcome).toMatchObject({ answer: null, exitReason: "token_budget", error: "stopped after 100 tokens, at the budget of 100" });
    expect(messages.slice(2).map((m) => m.role)).toEqual(["assistant", "tool", "assistant", "tool"]);
    expect(events.at(-1)).toMatchObject({ type: "turn_end", exitReason: "token_budget" });
  });

  it("stops the child before the next request once its prompt and completion tokens reach it: past it by at most the request in flight", async () => {
    const { result, model, transcripts, events } = await delegate(
      { task: "note everything" },
      [
        { message: notes(null, "a"), usage: usage(100, 10, 0) },
        { message: notes("a done, on to b", "b"), usage: usage(200, 20, 64) },
        { message: notes(null, "c"), usage: usage(300, 30, 128) },
      ],
      { maxSteps: 30, maxTokens: 250 },
    );
    // 110 tokens after the first request, under 250: a second is sent, which brings it to 330.
    expect(model.bodies).toHaveLength(2);
    expect(result).toEqual({
      content: "a done, on to b\n\n[the subagent was stopped by its token budget of 250 tokens (--child-max-tokens; it used 330) before it finished]",
      isError: false,
    });
    expect(transcripts[0]!.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_b", content: "[#3] noted b" });
    expect(transcripts[0]!.exit_reason).toBe("token_budget");
    expect(events.find((e) => e.type === "delegation_end")).toMatchObject({ exitReason: "token_budget", usage: { requests: 2, prompt_tokens: 300, completion_tokens: 30 } });
  });

  it("a first request larger than the whole budget is the only one", async () => {
    const { result, model } = await delegate({ task: "note everything" }, [{ message: notes(null, "a"), usage: usage(5000, 10, 0) }, { message: notes(null, "b") }], {
      maxSteps: 30,
      maxTokens: 1,
    });
    expect(model.bodies).toHaveLength(1);
    expect(result.content).toMatch(/token budget of 1 token \(--child-max-tokens; it used 5,010\)/);
  });

  it("and a step limit reached together: the steps are named, as the loop ends on them first", async () => {
    const { result } = await delegate({ task: "note", max_steps: 1 }, [{ message: notes(null, "a"), usage: usage(100, 10, 0) }], { maxSteps: 5, maxTokens: 50 });
    expect(result.content).toMatch(/step budget of 1 model request \(the max_steps of this call\)/);
  });
});

describe("in a whole conversation", () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });
  const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

  it("--child-max-steps 2: the child's third request is never sent, and the parent's next request carries its progress and the budget", async () => {
    sim = await startSimulator({
      script: [
        { tool_calls: [call("delegate_task", { task: "Survey the project." })] },
        { tool_calls: [call("read_file", { path: "." })] },
        { content: "The root holds a.txt; src/ is next.", tool_calls: [call("read_file", { path: "a.txt" })] },
        { content: "The survey was cut short." },
      ],
    });
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "a\n");
    const out = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--delegate", "task-only", "--child-max-steps", "2", "--json", "--record", out, "survey"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(sim.requests).toHaveLength(4);
    const parentAfter = sim.requests[3]!.body as ChatRequest;
    expect(parentAfter.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: expect.any(String),
      content: "[#5] The root holds a.txt; src/ is next.\n\n[the subagent was stopped by its step budget of 2 model requests (--child-max-steps) before it finished]",
    });
    expect(JSON.parse(result.stdout).usage.by_agent[1]).toMatchObject({ agent: "child", delegation: 1, mode: "task-only", requests: 2 });
    const delegation = JSON.parse(await readFile(join(out, "raw", "delegations.jsonl"), "utf8"));
    expect(delegation).toMatchObject({ exit_reason: "max_steps", answer: null });
    expect(result.stderr).toContain("⇠ delegation #1 max_steps: 2 requests");
  });

  it("--child-max-tokens: a child stops once the request in flight reaches it; the line gives what it used", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [call("delegate_task", { task: "Survey the project." })] }, { tool_calls: [call("read_file", { path: "." })] }, { content: "The survey was cut short." }],
    });
    const project = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--delegate", "full", "--child-max-tokens", "100", "survey"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(sim.requests).toHaveLength(3);
    const used = sim.requests[1]!.usage!.prompt_tokens + sim.requests[1]!.usage!.completion_tokens;
    expect((sim.requests[2]!.body as ChatRequest).messages.at(-1)).toMatchObject({
      role: "tool",
      content: `[#4] (the subagent wrote no text before it was stopped)\n\n[the subagent was stopped by its token budget of 100 tokens (--child-max-tokens; it used ${used.toLocaleString("en-US")}) before it finished]`,
    });
  });
});
