// The terminal view driven by events, with fake terminals and fake timers: the spinner and its step,
// reasoning folded while it streams (or shown whole), the answer rendered a block at a time in order
// with the progress lines, and nothing but plain lines when the streams are not terminals.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../src/agent/events.js";
import { createUsageLedger } from "../src/agent/usage-ledger.js";
import { DEFAULT_PRICES } from "../src/model/prices.js";
import { Progress } from "../src/cli/progress.js";
import { createRenderer, type Output } from "../src/cli/render.js";

interface Write {
  stream: "out" | "err";
  text: string;
}

function terminals(isTTY: boolean) {
  const writes: Write[] = [];
  const stream = (name: Write["stream"]): Output => ({ isTTY, columns: 60, write: (text) => void writes.push({ stream: name, text }) });
  const text = (name: Write["stream"]) => writes.filter((w) => w.stream === name).map((w) => w.text).join("");
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

  it("names a subagent's step while it works", () => {
    const progress = new Progress();
    progress.observe(turnStart, 0);
    progress.observe({ agent: "child", delegation: 2, type: "turn_start", instruction: "look" }, 10);
    progress.observe({ agent: "child", delegation: 2, type: "request", step: 3, body: {} as never, attempt: 1 }, 20);
    progress.observe({ agent: "child", delegation: 2, type: "tool_start", callId: "k", name: "read_file", arguments: '{"path":"a.txt"}' }, 30);
    expect(progress.line(65_000, 0)).toBe('⠋ subagent #2: running read_file {"path":"a.txt"} · step 3 · 1m 05s');
    progress.observe({ agent: "child", delegation: 2, type: "turn_end", answer: "x", exitReason: "completed", usage, contextTokens: 1, meter: null }, 40);
    expect(progress.line(65_000, 1)).toBe("⠙ starting · 1m 05s");
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
});
