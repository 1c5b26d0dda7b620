// The terminal view driven by events, with fake terminals and fake timers: the spinner and its step,
// reasoning folded while it streams (or shown whole), the answer rendered a block at a time in order
// with the progress lines, and nothing but plain lines when the streams are not terminals.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createUsageLedger } from "../../../src/agent/usage-ledger.js";
import { DEFAULT_PRICES } from "../../../src/model/prices.js";
import { Progress } from "../../../src/cli/term/progress.js";
import { createRenderer, type Output } from "../../../src/cli/term/render.js";

interface Write {
  stream: "out" | "err";
  text: string;
}

function terminals(isTTY: boolean) {
  const writes: Write[] = [];
  const stream = (name: Write["stream"]): Output => ({ isTTY, columns: 60, write: (text) => void writes.push({ stream: name, text }) });
  const text = (name: Write["stream"]) =>
    writes
      .filter((w) => w.stream === name)
      .map((w) => w.text)
      .join("");
  /** What the spinner region showed last: the text after the last erase. */
  const region = () => text("err").split("\x1b[J").at(-1) ?? "";
  return { stdout: stream("out"), stderr: stream("err"), writes, text, region };
}

const parent = { agent: "parent" as const };
const usage = { requests: 1, prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10 };
const turnStart: AgentEvent = { ...parent, type: "turn_start", instruction: "go" };
const request: AgentEvent = { ...parent, type: "request", step: 1, body: { model: "m", messages: [] } as never, attempt: 1 };
const reasoning = (text: string): AgentEvent => ({ ...parent, type: "reasoning_delta", text });
const text = (t: string): AgentEvent => ({ ...parent, type: "text_delta", text: t });
const response: AgentEvent = {
  ...parent,
  type: "response",
  step: 1,
  status: 200,
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10 },
  finishReason: "stop",
  durationMs: 5,
};
const turnEnd = (answer: string): AgentEvent => ({ ...parent, type: "turn_end", answer, exitReason: "completed", usage, contextTokens: 15, meter: null });

let clock = 0;
beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
});
afterEach(() => vi.useRealTimers());

const renderer = (t: ReturnType<typeof terminals>, over: { live?: boolean; showReasoning?: boolean } = {}) => {
  // As in a run: the ledger reads each event before the view, which asks it for the usage line.
  const ledger = createUsageLedger({ table: DEFAULT_PRICES, now: () => new Date(0) });
  const view = createRenderer({
    stdout: t.stdout,
    stderr: t.stderr,
    live: over.live ?? false,
    printAnswer: true,
    showReasoning: over.showReasoning ?? false,
    env: {},
    usage: ledger,
    now: () => clock,
  });
  return {
    ...view,
    observe: (event: AgentEvent) => {
      ledger.observe(event);
      view.observe(event);
    },
  };
};

describe("the spinner on a terminal", () => {
  it("says what hel is doing and for how long, and folds the reasoning to its last lines while it streams", async () => {
    const t = terminals(true);
    const r = renderer(t);
    for (const event of [turnStart, request]) r.observe(event);
    clock = 1200;
    vi.advanceTimersByTime(80);
    expect(t.region()).toBe("\x1b[2m⠙ requesting · 1.2s\x1b[22m");
    r.observe(reasoning("first thought\nsecond\n"));
    r.observe(reasoning("third\nfourth, still going"));
    vi.advanceTimersByTime(80);
    expect(t.region().split("\n")).toEqual(["\x1b[2m  second\x1b[22m", "\x1b[2m  third\x1b[22m", "\x1b[2m  fourth, still going\x1b[22m", "\x1b[2m⠹ thinking · 1.2s\x1b[22m"]);
    r.observe(text("Done."));
    expect(t.region()).toBe("\x1b[2m⠹ writing · 1.2s\x1b[22m");
    r.observe(response);
    r.observe(turnEnd("Done."));
    await r.flush();
    // Cleared at the end, and no more frames after it.
    const after = t.text("err").length;
    vi.advanceTimersByTime(400);
    expect(t.text("err").length).toBe(after);
    expect(t.text("err")).toContain("\r\x1b[J1 request · 10 input tokens");
  });

  it("shows every line of the reasoning with --show-reasoning, above the spinner", () => {
    const t = terminals(true);
    const r = renderer(t, { showReasoning: true });
    for (const event of [turnStart, request, reasoning("one\ntw"), reasoning("o\nthree"), response]) r.observe(event);
    const shown = t.text("err").replace(/\r\x1b\[J|\x1b\[2m⠋[^\n\r]*\x1b\[22m/g, "");
    expect(shown).toBe("\x1b[2mone\x1b[22m\n\x1b[2mtwo\x1b[22m\n\x1b[2mthree\x1b[22m\n");
  });

  it("shows each working subagent on its own line: its mode, step and tokens", () => {
    const progress = new Progress();
    const child = (delegation: number) => ({ agent: "child" as const, delegation });
    const childResponse = (delegation: number, prompt: number, completion: number): AgentEvent => ({
      ...(response as Extract<AgentEvent, { type: "response" }>),
      ...child(delegation),
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: prompt },
    });
    const start = (number: number, mode: "full" | null): AgentEvent => ({ ...parent, type: "delegation_start", number, kind: mode ? "delegate" : "review", mode, task: "t" });
    const end = (number: number): AgentEvent => ({ ...parent, type: "delegation_end", number, kind: "delegate", mode: "full", task: "t", answer: "x", exitReason: "completed", toolCalls: [], usage });
    progress.observe(turnStart, 0);
    progress.observe({ ...parent, type: "tool_start", callId: "d1", name: "delegate_task", arguments: "{}" }, 5);
    for (const number of [2, 3]) progress.observe(start(number, "full"), 10);
    progress.observe(start(4, null), 10);
    progress.observe({ ...child(2), type: "request", step: 3, body: {} as never, attempt: 1 }, 20);
    progress.observe(childResponse(2, 1200, 34), 25);
    progress.observe({ ...child(2), type: "tool_start", callId: "k", name: "read_file", arguments: '{"path":"a.txt"}' }, 30);
    progress.observe({ ...child(3), type: "request", step: 1, body: {} as never, attempt: 1 }, 30);
    expect(progress.lines(65_000, 0)).toEqual([
      "⠋ waiting for 3 subagents · 1m 05s",
      '  #2 full · step 3 · 1,234 tokens · running read_file {"path":"a.txt"}',
      "  #3 full · step 1 · 0 tokens · requesting",
      "  #4 review · step 1 · 0 tokens · starting",
    ]);
    for (const number of [3, 4]) progress.observe(end(number), 40);
    expect(progress.lines(65_000, 1)).toEqual(["⠙ waiting for subagent #2 · 1m 05s", '  #2 full · step 3 · 1,234 tokens · running read_file {"path":"a.txt"}']);
    progress.observe(end(2), 50);
    expect(progress.lines(65_000, 2)).toEqual(["⠹ running delegate_task {} · 1m 05s"]);
  });

  it("draws every working subagent's line in the live region, and names each one's tool lines", () => {
    const t = terminals(true);
    const r = renderer(t);
    r.observe(turnStart);
    for (const number of [1, 2]) r.observe({ ...parent, type: "delegation_start", number, kind: "delegate", mode: "no-tools", task: `task ${number}` });
    r.observe({ agent: "child", delegation: 2, type: "tool_start", callId: "k", name: "read_file", arguments: '{"path":"a.txt"}' });
    vi.advanceTimersByTime(80);
    expect(t.region().split("\n")).toEqual([
      "\x1b[2m⠙ waiting for 2 subagents · 0.0s\x1b[22m",
      "\x1b[2m  #1 no-tools · step 1 · 0 tokens · starting\x1b[22m",
      '\x1b[2m  #2 no-tools · step 1 · 0 tokens · running read_file {"pa…\x1b[0m',
    ]);
    expect(t.text("err")).toContain('    #2 → read_file {"path":"a.txt"}\n');
  });
});

describe("the answer on a terminal", () => {
  it("is rendered a block at a time as it streams, in order with the progress lines", async () => {
    const t = terminals(true);
    const r = renderer(t, { live: true });
    for (const event of [turnStart, request, text("# Plan\n\nFirst **bold"), text("** step.\n\nSec")]) r.observe(event);
    r.observe(text("ond."));
    r.observe(response);
    r.observe({ ...parent, type: "tool_start", callId: "c", name: "read_file", arguments: '{"path":"a"}' });
    await r.flush();
    const out = t.writes.filter((w) => w.stream === "out" || w.text.includes("→")).map((w) => w.text);
    expect(out).toEqual(["\x1b[1m\x1b[4mPlan\x1b[24m\x1b[22m\n", "\nFirst \x1b[1mbold\x1b[22m step.\n", "\nSecond.\n", '→ read_file {"path":"a"}\n']);
  });

  it("is printed as it came, with no spinner or colour, when neither stream is a terminal", async () => {
    const t = terminals(false);
    const r = renderer(t);
    for (const event of [turnStart, request, reasoning("hmm"), text("**bold**"), response, turnEnd("**bold**")]) r.observe(event);
    vi.advanceTimersByTime(400);
    await r.flush();
    expect(t.text("out")).toBe("**bold**\n");
    expect(t.text("err")).toBe("1 request · 10 input tokens (0 cached, 0%) · 5 output · context ~15 tokens\n");
  });

  it("puts the model's text between its steps on stderr outside the interactive mode, the answer alone on stdout", async () => {
    const step = (agent: Pick<AgentEvent, "agent" | "delegation">): AgentEvent => ({
      ...agent,
      type: "message",
      message: { role: "assistant", content: "Running the tests.\n", tool_calls: [{ id: "c", type: "function", function: { name: "run_command", arguments: "{}" } }] },
    });
    const t = terminals(false);
    const r = renderer(t);
    for (const event of [turnStart, request, text("Running the tests.\n"), response, step(parent), step({ agent: "child", delegation: 1 }), turnEnd("All pass.")]) r.observe(event);
    await r.flush();
    expect(t.text("out")).toBe("All pass.\n");
    expect(t.text("err")).toBe("Running the tests.\n1 request · 10 input tokens (0 cached, 0%) · 5 output · context ~15 tokens\n");
    // The interactive prompt has streamed it on stdout already.
    const live = terminals(false);
    const l = renderer(live, { live: true });
    for (const event of [turnStart, request, text("Running the tests.\n"), response, step(parent)]) l.observe(event);
    await l.flush();
    expect(live.text("err")).not.toContain("Running");
  });

  it("shows each tool result's stamp dim on a terminal, so /fold #N can be typed; not when the streams are not terminals", async () => {
    const result: AgentEvent = { ...parent, type: "message", message: { role: "tool", tool_call_id: "c", content: "[#7] 1\ta" } };
    const live = terminals(true);
    const r = renderer(live, { live: true });
    for (const event of [turnStart, request, response, { ...parent, type: "tool_start", callId: "c", name: "read_file", arguments: '{"path":"a"}' } as AgentEvent, result]) r.observe(event);
    await r.flush();
    expect(live.writes.map((w) => w.text)).toContain("\x1b[2m  #7\x1b[22m\n");
    const plain = terminals(false);
    const p = renderer(plain);
    for (const event of [turnStart, request, response, result]) p.observe(event);
    await p.flush();
    expect(plain.text("err")).not.toContain("#7");
  });
});
