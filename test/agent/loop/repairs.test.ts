// DeepSeek as it really answers, on the real HTTP path: the loop with the real client against the
// simulator playing each of the model's faults. Every case asserts the request bodies before and after
// the repair: tool calls written as DSML markup (each block spelling, each bar, parameters as
// elements or JSON, in content or as the whole reasoning), arguments that are not JSON, a call cut at
// the output limit, a storm of identical calls, an empty answer.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runTurn } from "../../../src/agent/loop/loop.js";
import { createModelClient, type ModelClient } from "../../../src/model/client.js";
import type { Tool } from "../../../src/tools/types.js";
import { bareRun } from "../../helpers/agent-setup.js";
import type { ChatRequest, Effort, Message } from "../../../src/wire/messages.js";
import { countTokens, startSimulator, type SimMarkup, type SimStep, type Simulator } from "../../../sim/index.js";

const SYSTEM: Message = { role: "system", content: "You are hel." };
const USER: Message = { role: "user", content: "take notes" };
const REF = { agent: "parent" } as const;

let sim: Simulator | undefined;
let client: ModelClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  sim = client = undefined;
});

interface Setup {
  effort?: Effort;
  maxTokens?: number;
}

/** One turn over [SYSTEM, USER] against the simulator playing `script`, with `note` (reads) and `mark` (may change files). */
async function turn(script: SimStep[], { effort = "none", maxTokens = 1000 }: Setup = {}) {
  sim = await startSimulator({ script });
  client = createModelClient({ baseURL: sim.url, apiKey: "sk-test" });
  const log: string[] = [];
  const note: Tool<{ text: string }> = {
    name: "note",
    description: "Record a note.",
    schema: z.object({ text: z.string() }),
    spill: false,
    run: async ({ text }) => {
      log.push(`note ${text}`);
      return `noted ${text}`;
    },
  };
  const mark: Tool<{ text: string }> = { ...note, name: "mark", run: async ({ text }) => (log.push(`mark ${text}`), `marked ${text}`) };
  const tools = [note, mark] as Tool[];
  const { run, events } = bareRun({ ref: REF, client, tools, maxSteps: 8, maxTokens, effort });
  const messages: Message[] = [SYSTEM, USER];
  const outcome = await runTurn(messages, run, new AbortController().signal);
  const bodies = sim.requests.map((r) => r.body as ChatRequest);
  const repairs = events.flatMap((e) => (e.type === "repair" ? [{ kind: e.kind, detail: e.detail }] : []));
  return { outcome, messages, events, log, bodies, repairs, definitions: run.toolDefinitions };
}

const noteArgs = (text: string) => JSON.stringify({ text });
const first = (definitions: unknown, maxTokens = 1000) => ({
  model: "deepseek-flash",
  messages: [SYSTEM, USER],
  tools: definitions,
  thinking: { type: "disabled" },
  max_tokens: maxTokens,
  stream: true,
  stream_options: { include_usage: true },
});
const CALL_ID = /^call_00_[A-Za-z0-9]{24}$/;
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("tool calls written as text", () => {
  const spellings: [string, SimMarkup][] = [
    ["function_calls, full-width bar, parameter elements", { block: "function_calls" }],
    ["tool_calls, ASCII bar, parameter elements", { block: "tool_calls", bar: "ascii" }],
    ["calls, full-width bar, one JSON object", { block: "calls", params: "json" }],
    ["function_calls, ASCII bar, `<|DSML| invoke`", { bar: "ascii", spacedInvoke: true }],
  ];
  it.each(spellings)("%s: become real calls, the markup leaves the stored content, and the call runs", async (_name, markup) => {
    const { outcome, messages, bodies, log, repairs, definitions } = await turn([{ content: "Let me note it.", tool_calls: [{ name: "note", arguments: noteArgs("a b") }], markup }, { content: "done" }]);
    expect(outcome).toMatchObject({ answer: "done", exitReason: "completed" });
    expect(log).toEqual(["note a b"]);
    expect(bodies[0]).toEqual(first(definitions));
    const assistant = messages[2] as Extract<Message, { role: "assistant" }>;
    expect(assistant).toEqual({
      role: "assistant",
      content: "Let me note it.",
      reasoning_content: "",
      tool_calls: [{ id: expect.stringMatching(CALL_ID), type: "function", function: { name: "note", arguments: noteArgs("a b") } }],
    });
    const id = assistant.tool_calls![0]!.id;
    expect(bodies[1]).toEqual({ ...first(definitions), messages: [SYSTEM, USER, assistant, { role: "tool", tool_call_id: id, content: "[#1] noted a b" }] });
    expect(repairs).toEqual([{ kind: "markup", detail: "note written as text, made into tool calls" }]);
  });

  it("as the whole reasoning, with no content (thinking mode): the same, and the reasoning replayed without the markup", async () => {
    const { bodies, messages, log, repairs } = await turn(
      [
        {
          tool_calls: [
            { name: "note", arguments: noteArgs("x") },
            { name: "mark", arguments: JSON.stringify({ text: "y" }) },
          ],
          markup: { in: "reasoning" },
        },
        { content: "done" },
      ],
      { effort: "high" },
    );
    expect(log).toEqual(["note x", "mark y"]);
    const assistant = messages[2] as Extract<Message, { role: "assistant" }>;
    expect(assistant).toEqual({
      role: "assistant",
      content: "",
      reasoning_content: "",
      tool_calls: [
        { id: expect.stringMatching(CALL_ID), type: "function", function: { name: "note", arguments: noteArgs("x") } },
        { id: expect.stringMatching(/^call_01_/), type: "function", function: { name: "mark", arguments: JSON.stringify({ text: "y" }) } },
      ],
    });
    expect(bodies[1]!.messages).toEqual([SYSTEM, USER, assistant, messages[3], messages[4]]);
    expect(bodies[1]!.messages[3]).toEqual({ role: "tool", tool_call_id: assistant.tool_calls![0]!.id, content: "[#1] noted x" });
    expect(repairs.map((r) => r.kind)).toEqual(["markup"]);
  });

  it("an invoke of a tool that is not offered gets the usual unknown-tool result", async () => {
    const { bodies, log } = await turn([{ tool_calls: [{ name: "write_file", arguments: JSON.stringify({ path: "a" }) }], markup: {} }, { content: "done" }]);
    expect(log).toEqual([]);
    expect(bodies[1]!.messages[3]).toEqual({ role: "tool", tool_call_id: expect.stringMatching(CALL_ID), content: '[#1] Error: unknown tool "write_file". Available tools: note, mark' });
  });

  it("a block that does not parse is left as text: the answer is final, and nothing is repaired", async () => {
    const broken = 'Here:\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="note">\n<｜DSML｜parameter name="text" string="false">not json</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>';
    const { outcome, messages, bodies, repairs } = await turn([{ content: broken }]);
    expect(outcome).toMatchObject({ answer: broken, exitReason: "completed" });
    expect(messages[2]).toEqual({ role: "assistant", content: broken });
    expect(bodies).toHaveLength(1);
    expect(repairs).toEqual([]);
  });
});

describe("arguments that are not JSON", () => {
  it("are never run nor sent back: the stored call keeps {}, its result says where it broke and the schema", async () => {
    const { outcome, messages, bodies, log, repairs, definitions } = await turn([
      {
        tool_calls: [
          { id: "call_00_broken", name: "note", arguments: "{" },
          { id: "call_01_fine", name: "note", arguments: noteArgs("ok") },
        ],
      },
      { content: "done" },
    ]);
    expect(outcome.exitReason).toBe("completed");
    expect(log).toEqual(["note ok"]);
    expect(bodies[0]).toEqual(first(definitions));
    expect(bodies[1]!.messages).toEqual([
      SYSTEM,
      USER,
      {
        role: "assistant",
        content: "",
        reasoning_content: "",
        tool_calls: [
          { id: "call_00_broken", type: "function", function: { name: "note", arguments: "{}" } },
          { id: "call_01_fine", type: "function", function: { name: "note", arguments: noteArgs("ok") } },
        ],
      },
      {
        role: "tool",
        tool_call_id: "call_00_broken",
        // Where it broke, in the words of Node's JSON parser (which vary a little between versions).
        content: expect.stringMatching(
          new RegExp(
            `^\\[#1\\] Error: the arguments of note are not valid JSON \\(Expected property name or '\\}' in JSON at position 1[^)]*\\)+, so the call was not run\\. Resend the call with its arguments as one JSON object of this schema: ${escapeRegex(JSON.stringify(definitions[0]!.function.parameters))}$`,
          ),
        ),
      },
      { role: "tool", tool_call_id: "call_01_fine", content: "[#2] noted ok" },
    ]);
    expect(messages.slice(2, 5)).toEqual(bodies[1]!.messages.slice(2));
    expect(repairs).toEqual([{ kind: "arguments", detail: "arguments of note were not JSON; not run" }]);
  });
});

describe("a call cut at the output limit", () => {
  const text = "word ".repeat(40).trim();
  const need = countTokens(noteArgs(text)) + 6;
  const maxTokens = Math.ceil(need * 0.75);

  it("never runs; the request goes again once with twice the max_tokens, and the whole call then runs", async () => {
    const step = { tool_calls: [{ name: "note", arguments: noteArgs(text) }] };
    const { outcome, bodies, log, repairs, definitions } = await turn([step, step, { content: "done" }], { maxTokens });
    expect(sim!.requests[0]!.usage!.completion_tokens).toBe(maxTokens);
    expect(bodies[0]).toEqual(first(definitions, maxTokens));
    expect(bodies[1]).toEqual(first(definitions, maxTokens * 2));
    expect(log).toEqual([`note ${text}`]);
    expect(bodies[2]!.messages).toHaveLength(4);
    expect(bodies[2]!.max_tokens).toBe(maxTokens);
    expect(outcome.exitReason).toBe("completed");
    expect(repairs).toEqual([{ kind: "length", detail: `a tool call was cut at max_tokens ${maxTokens}; sent again with ${maxTokens * 2}` }]);
  });

  it("cut again: the turn ends with length and a line saying to raise --max-output-tokens; nothing ran", async () => {
    const long = { tool_calls: [{ name: "note", arguments: noteArgs("word ".repeat(400)) }] };
    const { outcome, messages, bodies, log } = await turn([long, long], { maxTokens });
    expect(bodies.map((b) => b.max_tokens)).toEqual([maxTokens, maxTokens * 2]);
    expect(bodies[1]!.messages).toEqual([SYSTEM, USER]);
    expect(log).toEqual([]);
    expect(messages).toEqual([SYSTEM, USER]);
    expect(outcome).toMatchObject({
      exitReason: "length",
      answer: null,
      error: `a tool call was cut off at the output limit (max_tokens ${maxTokens * 2}) and not run — raise --max-output-tokens`,
    });
  });
});

describe("a storm of identical calls", () => {
  const same = { tool_calls: [{ name: "note", arguments: noteArgs("again") }] };
  it("the third identical call is not run: its result names the earlier identical result and asks for a different step", async () => {
    const { bodies, log, repairs } = await turn([same, same, same, { content: "done" }]);
    expect(log).toEqual(["note again", "note again"]);
    const results = bodies[3]!.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual([
      "[#1] noted again",
      "[#2] noted again",
      "[#3] Error: this call was not run: it is the third identical note call in a row, and nothing that could change its result happened since #2, whose result stands. Take a different step: another tool, other arguments, or your answer.",
    ]);
    // The refused call itself goes back as it came: its arguments are valid.
    expect(bodies[3]!.messages[6]).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "note", arguments: noteArgs("again") } }] });
    expect(repairs).toEqual([{ kind: "storm", detail: "a third identical note call in a row was not run" }]);
  });

  it("a call between that may change files (another tool's) starts the count again", async () => {
    const between = { tool_calls: [{ name: "mark", arguments: noteArgs("b") }] };
    const { log, repairs } = await turn([same, same, between, same, { content: "done" }]);
    expect(log).toEqual(["note again", "note again", "mark b", "note again"]);
    expect(repairs).toEqual([]);
  });
});

describe("an empty answer", () => {
  it("is asked for once more with the same request, and the answer then counts", async () => {
    const { outcome, bodies, messages, repairs, definitions } = await turn([{ content: null }, { content: "here it is" }]);
    expect(bodies).toEqual([first(definitions), first(definitions)]);
    expect(messages).toEqual([SYSTEM, USER, { role: "assistant", content: "here it is" }]);
    expect(outcome).toMatchObject({ answer: "here it is", exitReason: "completed" });
    expect(repairs).toEqual([{ kind: "empty", detail: "the answer was empty; asked again" }]);
  });

  it("twice ends the turn with empty, the conversation as it was", async () => {
    const { outcome, bodies, messages } = await turn([{ content: "" }, { content: null }]);
    expect(bodies).toHaveLength(2);
    expect(messages).toEqual([SYSTEM, USER]);
    expect(outcome).toMatchObject({ answer: null, exitReason: "empty", error: "the model answered nothing, twice — send the instruction again, or put it another way" });
  });
});
