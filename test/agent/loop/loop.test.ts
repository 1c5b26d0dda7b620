// The agent loop's rules, with an in-process model (helpers/fake-model.ts) and in-process tools, so each
// rule is pinned down without HTTP: calls run in order and each gets its result, an abort still answers
// every call, a cut-off answer keeps only its text, the step limit and model errors end the turn, the
// events come in order, and usage is summed. One test runs the real client against the simulator.
import { setImmediate as nextTick } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../../src/agent/events.js";
import { beginTurn, runTurn } from "../../../src/agent/loop/loop.js";
import { estimateTokens } from "../../../src/agent/meter.js";
import { StampCounter } from "../../../src/agent/stamps.js";
import { createModelClient, type ModelClient } from "../../../src/model/client.js";
import { ModelError } from "../../../src/model/errors.js";
import { ToolError, type Tool } from "../../../src/tools/types.js";
import type { AssistantMessage, Message } from "../../../src/wire/messages.js";
import { startSimulator, type Simulator } from "../../../sim/index.js";
import { fakeModel, toolCall, usage } from "../../helpers/fake-model.js";
import { bareRun } from "../../helpers/agent-setup.js";

const SYSTEM: Message = { role: "system", content: "You are hel." };
const USER: Message = { role: "user", content: "take notes" };
const REF = { agent: "child", delegation: 3 } as const;
const INTERRUPTED = /^\[#\d+\] Error: the user interrupted before this tool call ran/;

const notes = (...texts: string[]): AssistantMessage => ({
  role: "assistant",
  content: null,
  reasoning_content: `note ${texts.join(", ")}`,
  tool_calls: texts.map((text) => toolCall(`call_${text}`, "note", { text })),
});
const answer = (content: string): AssistantMessage => ({ role: "assistant", content });
/** The result of the note call on `text`, opened by its stamp (a matcher is used as it is). */
const result = (text: string, stamp: number, content: unknown = `noted ${text}`): Message =>
  ({ role: "tool", tool_call_id: `call_${text}`, content: typeof content === "string" ? `[#${stamp}] ${content}` : content }) as Message;

interface Turn {
  maxSteps?: number;
  signal?: AbortSignal;
  /** Called as the note tool starts on a text (before it yields to the event loop). */
  onNote?: (text: string) => void;
  /** Makes note a concurrent tool; `mark` stays one that runs alone. */
  concurrent?: boolean;
}

/** Runs one turn of the loop over [SYSTEM, USER] with a `note` tool; returns all it left behind. */
async function turn(client: ModelClient, { maxSteps = 5, signal = new AbortController().signal, onNote, concurrent = false }: Turn = {}) {
  const log: string[] = [];
  // Yields between start and end ("slow" for longer), so calls run side by side would interleave in the log.
  const note: Tool<{ text: string }> = {
    name: "note",
    description: "Record a note.",
    schema: z.object({ text: z.string() }),
    spill: false,
    concurrent,
    run: async ({ text }) => {
      log.push(`start ${text}`);
      onNote?.(text);
      for (let i = text === "slow" ? 3 : 1; i > 0; i--) await nextTick();
      log.push(`end ${text}`);
      if (text === "bad") throw new ToolError("that note cannot be taken; take another");
      return `noted ${text}`;
    },
  };
  const mark: Tool<{ text: string }> = { ...note, name: "mark", concurrent: false };
  const tools = concurrent ? [note, mark] : [note];
  const { run, events } = bareRun({ ref: REF, client, tools, maxSteps });
  const messages: Message[] = [SYSTEM, USER];
  const outcome = await runTurn(messages, run, signal);
  return { outcome, messages, events, log, definitions: run.toolDefinitions };
}

const types = (events: AgentEvent[]) => events.map((e) => e.type);

let sim: Simulator | undefined;
let client: ModelClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  sim = client = undefined;
});

describe("tool calls", () => {
  it("run one at a time in the order given, each answered by its own result, which the next request carries", async () => {
    const model = fakeModel([{ message: notes("a", "bad", "c") }, { message: answer("done") }]);
    const { outcome, messages, log, definitions } = await turn(model);
    expect(log).toEqual(["start a", "end a", "start bad", "end bad", "start c", "end c"]);
    expect(messages).toEqual([SYSTEM, USER, notes("a", "bad", "c"), result("a", 1), result("bad", 2, "Error: that note cannot be taken; take another"), result("c", 3), answer("done")]);
    expect(model.bodies).toEqual([
      {
        model: "deepseek-flash",
        messages: [SYSTEM, USER],
        tools: definitions,
        thinking: { type: "disabled" },
        max_tokens: 1000,
        stream: true,
        stream_options: { include_usage: true },
      },
      expect.objectContaining({ messages: messages.slice(0, 6) }),
    ]);
    expect(outcome).toMatchObject({ answer: "done", exitReason: "completed" });
  });
});

describe("calls of a concurrent tool", () => {
  const calls = (...specs: [name: string, text: string][]): AssistantMessage => ({
    role: "assistant",
    content: null,
    tool_calls: specs.map(([name, text]) => toolCall(`call_${text}`, name, { text })),
  });

  it("run side by side when consecutive; each result joins in call order, a slow first one before the quick ones", async () => {
    const message = calls(["note", "slow"], ["note", "bad"], ["note", "c"]);
    const model = fakeModel([{ message }, { message: answer("done") }]);
    const { messages, events, log } = await turn(model, { concurrent: true });
    expect(log).toEqual(["start slow", "start bad", "start c", "end bad", "end c", "end slow"]);
    expect(messages.slice(3, 6)).toEqual([result("slow", 1), result("bad", 2, "Error: that note cannot be taken; take another"), result("c", 3)]);
    const order = events.filter((e) => e.type === "tool_start" || e.type === "tool_end").map((e) => `${e.type} ${"callId" in e ? e.callId : ""}`);
    expect(order).toEqual(["tool_start call_slow", "tool_start call_bad", "tool_start call_c", "tool_end call_slow", "tool_end call_bad", "tool_end call_c"]);
    expect(model.bodies[1]!.messages).toEqual(messages.slice(0, 6));
  });

  it("a call of another tool runs alone: it ends the batch before it and starts after", async () => {
    const model = fakeModel([{ message: calls(["note", "a"], ["note", "b"], ["mark", "m"], ["note", "c"], ["note", "d"]) }, { message: answer("done") }]);
    const { messages, log } = await turn(model, { concurrent: true });
    expect(log).toEqual(["start a", "start b", "end a", "end b", "start m", "end m", "start c", "start d", "end c", "end d"]);
    expect(messages.slice(3, 8).map((m) => (m.role === "tool" ? m.tool_call_id : m.role))).toEqual(["call_a", "call_b", "call_m", "call_c", "call_d"]);
  });

  it("an abort as the batch starts: the calls already started finish with their results, every later one gets the interrupted result", async () => {
    const controller = new AbortController();
    const model = fakeModel([{ message: calls(["note", "a"], ["note", "b"], ["mark", "m"]) }]);
    const { outcome, messages, log } = await turn(model, { concurrent: true, signal: controller.signal, onNote: (text) => text === "a" && controller.abort() });
    expect(log).toEqual(["start a", "end a"]);
    expect(messages.slice(3)).toEqual([
      result("a", 1),
      { role: "tool", tool_call_id: "call_b", content: expect.stringMatching(INTERRUPTED) },
      { role: "tool", tool_call_id: "call_m", content: expect.stringMatching(INTERRUPTED) },
    ]);
    expect(outcome.exitReason).toBe("aborted");
  });
});

describe("an abort", () => {
  it("while a call runs: the calls after it do not run, and each gets the interrupted result", async () => {
    const controller = new AbortController();
    const model = fakeModel([{ message: notes("a", "b", "c") }, { message: answer("not asked for") }]);
    const { outcome, messages, events, log } = await turn(model, {
      signal: controller.signal,
      onNote: (text) => text === "a" && controller.abort(),
    });
    expect(log).toEqual(["start a", "end a"]);
    expect(messages.slice(3)).toEqual([result("a", 1), result("b", 2, expect.stringMatching(INTERRUPTED)), result("c", 3, expect.stringMatching(INTERRUPTED))]);
    expect(outcome).toMatchObject({ answer: null, exitReason: "aborted" });
    expect(outcome.error).toBeUndefined();
    expect(types(events)).toEqual(["request", "reasoning_delta", "response", "message", "tool_start", "tool_end", "message", "message", "message", "turn_end"]);
    expect(model.bodies).toHaveLength(1);
  });

  it("while a call runs, with the real client over HTTP: the same, and no further request is sent", async () => {
    sim = await startSimulator({ script: [{ tool_calls: ["a", "b", "c"].map((text) => ({ id: `call_${text}`, name: "note", arguments: JSON.stringify({ text }) })) }] });
    client = createModelClient({ baseURL: sim.url, apiKey: "sk-test" });
    const controller = new AbortController();
    const { outcome, messages, events, log } = await turn(client, { signal: controller.signal, onNote: (text) => text === "a" && controller.abort() });
    expect(log).toEqual(["start a", "end a"]);
    expect(messages.slice(3)).toEqual([result("a", 1), result("b", 2, expect.stringMatching(INTERRUPTED)), result("c", 3, expect.stringMatching(INTERRUPTED))]);
    expect(outcome.exitReason).toBe("aborted");
    expect(types(events)).toEqual(["request", "response", "message", "tool_start", "tool_end", "message", "message", "message", "turn_end"]);
    expect(sim.requests).toHaveLength(1);
  });

  it("before the calls: none runs, and every one gets the interrupted result", async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome, messages, log } = await turn(fakeModel([{ message: notes("a", "b") }]), { signal: controller.signal });
    expect(log).toEqual([]);
    expect(messages.slice(2)).toEqual([notes("a", "b"), result("a", 1, expect.stringMatching(INTERRUPTED)), result("b", 2, expect.stringMatching(INTERRUPTED))]);
    expect(outcome.exitReason).toBe("aborted");
  });

  it("of the model request: the turn ends as aborted, not as an error, and the conversation is unchanged", async () => {
    const { outcome, messages, events } = await turn(fakeModel([{ error: new ModelError("aborted", "the request was aborted") }]));
    expect(outcome).toMatchObject({ answer: null, exitReason: "aborted" });
    expect(outcome.error).toBeUndefined();
    expect(messages).toEqual([SYSTEM, USER]);
    expect(types(events)).toEqual(["request", "response", "turn_end"]);
  });
});

describe("an answer cut off at the output limit", () => {
  it("keeps only its text: the cut-off calls (and the reasoning) are dropped and none runs, sent again once with twice the max_tokens", async () => {
    const cut: AssistantMessage = { ...notes("a"), content: "First I will" };
    const model = fakeModel([
      { message: cut, finishReason: "length" },
      { message: cut, finishReason: "length" },
    ]);
    const { outcome, messages, events, log } = await turn(model);
    expect(messages).toEqual([SYSTEM, USER, { role: "assistant", content: "First I will" }]);
    expect(log).toEqual([]);
    expect(types(events)).not.toContain("tool_start");
    expect(outcome).toMatchObject({
      answer: "First I will",
      exitReason: "length",
      error: "a tool call was cut off at the output limit (max_tokens 2000) and not run — raise --max-output-tokens",
    });
    expect(model.bodies.map((b) => b.max_tokens)).toEqual([1000, 2000]);
  });

  it("without calls, ends at once with what text there is", async () => {
    const model = fakeModel([{ message: answer("First I will"), finishReason: "length" }]);
    const { outcome, messages } = await turn(model);
    expect(messages).toEqual([SYSTEM, USER, answer("First I will")]);
    expect(outcome).toMatchObject({ answer: "First I will", exitReason: "length", error: "the answer reached the output limit (max_tokens)" });
    expect(model.bodies).toHaveLength(1);
  });

  it("without text adds nothing to the conversation", async () => {
    const { outcome, messages } = await turn(
      fakeModel([
        { message: notes("a"), finishReason: "length" },
        { message: notes("a"), finishReason: "length" },
      ]),
    );
    expect(messages).toEqual([SYSTEM, USER]);
    expect(outcome).toMatchObject({ answer: null, exitReason: "length" });
  });
});

it("the step limit ends the turn with max_steps after that many requests, every call answered", async () => {
  const model = fakeModel([{ message: notes("a") }, { message: notes("b") }, { message: answer("late") }]);
  const { outcome, messages } = await turn(model, { maxSteps: 2 });
  expect(model.bodies).toHaveLength(2);
  expect(messages).toEqual([SYSTEM, USER, notes("a"), result("a", 1), notes("b"), result("b", 2)]);
  expect(outcome).toMatchObject({ answer: null, exitReason: "max_steps", error: "stopped after 2 model requests (--max-steps)" });
});

describe("a model error", () => {
  it.each([
    ["a ModelError", new ModelError("server", "DeepSeek's server failed (500) — try again in a few minutes, or resume the session later", 500), 500],
    ["any other error", new Error("socket hang up"), 0],
  ])("(%s) ends the turn with error, its message, and the conversation as it was", async (_name, error, status) => {
    const { outcome, messages, events } = await turn(fakeModel([{ message: notes("a") }, { error }]));
    expect(outcome).toMatchObject({ answer: null, exitReason: "error", error: error.message });
    expect(messages).toEqual([SYSTEM, USER, notes("a"), result("a", 1)]);
    expect(events.filter((e) => e.type === "response").at(-1)).toEqual({ ...REF, type: "response", step: 2, status, usage: undefined, finishReason: null, durationMs: 0, error: error.message });
    expect(events.at(-1)).toMatchObject({ type: "turn_end", exitReason: "error", error: error.message });
  });
});

it("the events: each request, its deltas and response, each call's start and end, then the end of the turn", async () => {
  const u1 = usage(100, 10, 0);
  const u2 = usage(130, 5, 64);
  const model = fakeModel([
    { message: notes("a"), usage: u1 },
    { message: answer("done"), usage: u2 },
  ]);
  const { outcome, events } = await turn(model);
  expect(events.map((e) => (e.type === "request" ? { ...e, body: null } : e))).toEqual([
    { ...REF, type: "request", step: 1, body: null, attempt: 1 },
    { ...REF, type: "reasoning_delta", text: "note a" },
    { ...REF, type: "response", step: 1, status: 200, usage: u1, finishReason: "tool_calls", durationMs: 0 },
    { ...REF, type: "message", message: notes("a") },
    { ...REF, type: "tool_start", callId: "call_a", name: "note", arguments: '{"text":"a"}' },
    { ...REF, type: "tool_end", callId: "call_a", name: "note", isError: false, result: "noted a" },
    { ...REF, type: "message", message: result("a", 1) },
    { ...REF, type: "request", step: 2, body: null, attempt: 1 },
    { ...REF, type: "text_delta", text: "done" },
    { ...REF, type: "response", step: 2, status: 200, usage: u2, finishReason: "stop", durationMs: 0 },
    { ...REF, type: "message", message: answer("done") },
    {
      ...REF,
      type: "turn_end",
      answer: "done",
      exitReason: "completed",
      usage: outcome.usage,
      // Measured up to the last request, estimated for the answer added after it.
      contextTokens: 130 + estimateTokens(JSON.stringify(answer("done"))),
      meter: { message_count: 4, input_tokens: 130 },
    },
  ]);
  // Each request event carries the body that was sent.
  const sent = events.flatMap((e) => (e.type === "request" ? [JSON.parse(JSON.stringify(e.body))] : []));
  expect(sent).toEqual(model.bodies);
});

it("usage is summed over the turn's requests, one without usage counted as a request with its tokens estimated; the meter is the last measured one", async () => {
  const { outcome, events } = await turn(fakeModel([{ message: notes("a"), usage: usage(100, 10, 0) }, { message: notes("b"), usage: usage(300, 30, 256) }, { message: answer("done") }]));
  const estimated = events.flatMap((e) => (e.type === "response" ? [e.usage!] : []))[2]!;
  expect(estimated).toMatchObject({ estimated: true, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: estimated.prompt_tokens });
  expect(estimated.prompt_tokens).toBeGreaterThan(300);
  expect(estimated.completion_tokens).toBeGreaterThan(0);
  expect(outcome.usage).toEqual({
    requests: 3,
    prompt_tokens: 400 + estimated.prompt_tokens,
    completion_tokens: 40 + estimated.completion_tokens,
    prompt_cache_hit_tokens: 256,
    prompt_cache_miss_tokens: 144 + estimated.prompt_tokens,
    estimated_requests: 1,
  });
  // The second request, the last with usage, sent four messages: system, user, a call and its result.
  expect(outcome.meter).toEqual({ message_count: 4, input_tokens: 300 });
  expect(events.at(-1)).toMatchObject({ type: "turn_end", usage: outcome.usage, meter: outcome.meter });
});

it("every message that joins the conversation is reported, in order, by a message event", async () => {
  const messages: Message[] = [SYSTEM];
  const events: AgentEvent[] = [];
  const run = { ref: REF, emit: (e: AgentEvent) => void events.push(e), stamps: new StampCounter(6) };
  beginTurn(messages, "go", run);
  expect(messages).toEqual([SYSTEM, { role: "user", content: "[#7] go" }]);
  expect(events).toEqual([
    { ...REF, type: "turn_start", instruction: "go" },
    { ...REF, type: "message", message: { role: "user", content: "[#7] go" } },
  ]);
  const { messages: after, events: more } = await turn(fakeModel([{ message: notes("a") }, { message: answer("done") }]));
  expect(more.flatMap((e) => (e.type === "message" ? [e.message] : []))).toEqual(after.slice(2));
});
