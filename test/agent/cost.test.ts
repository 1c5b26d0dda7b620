// Cost per agent: the price table's dollar math against a hand computation (peak hours included), the
// one usage ledger every reader asks, and end to end: --json's by_agent, stderr's end-of-instruction
// line, record.json, `hel sessions show`, and HEL_PRICES replacing the table (a bad file is a usage error).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { byAgent, createUsageLedger } from "../../src/agent/usage-ledger.js";
import { DEFAULT_PRICES, isPeak, requestCost, type PriceTable } from "../../src/model/prices.js";
import type { ChatRequest, Usage } from "../../src/wire/messages.js";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { responseEvent, usage } from "../helpers/fake-model.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("the price table", () => {
  // 900,000 cache-hit and 100,000 cache-miss input tokens, 1,000 output tokens of deepseek-flash:
  // 0.9 × $0.003 + 0.1 × $0.15 + 0.001 × $0.60 = $0.0027 + $0.015 + $0.0006 = $0.0183.
  const u = usage(1_000_000, 1_000, 900_000);

  it.each([
    ["a Tuesday at noon UTC", "2026-09-15T12:00:00Z", 0.0183],
    ["a Tuesday at 02:30 UTC (peak: twice)", "2026-09-15T02:30:00Z", 0.0366],
    ["a Tuesday at 04:00 UTC (the peak hours end before it)", "2026-09-15T04:00:00Z", 0.0183],
    ["a Tuesday at 06:00 UTC (the second peak)", "2026-09-15T06:00:00Z", 0.0366],
    ["a Tuesday at 09:59 UTC", "2026-09-15T09:59:00Z", 0.0366],
    ["a Saturday at 02:00 UTC (no peak at weekends)", "2026-09-19T02:00:00Z", 0.0183],
    ["a Friday at 02:00 UTC before peak pricing began", "2026-08-14T02:00:00Z", 0.0183],
    ["the first Monday of peak pricing at 02:00 UTC", "2026-08-17T02:00:00Z", 0.0366],
  ])("deepseek-flash on %s", (_when, at, dollars) => {
    expect(requestCost(u, "deepseek-flash", new Date(at), DEFAULT_PRICES)).toBeCloseTo(dollars, 12);
  });

  it("deepseek-v4-pro: 0.9 × $0.022 + 0.1 × $0.66 + 0.001 × $1.98 off-peak", () => {
    expect(requestCost(u, "deepseek-v4-pro", new Date("2026-09-15T12:00:00Z"), DEFAULT_PRICES)).toBeCloseTo(0.0198 + 0.066 + 0.00198, 12);
  });

  it("the legacy Flash names are billed at the Flash price; a model without a price has no cost", () => {
    const at = new Date("2026-09-15T12:00:00Z");
    expect(requestCost(u, "deepseek-v4-flash", at, DEFAULT_PRICES)).toBeCloseTo(0.0183, 12);
    expect(requestCost(u, "gpt-4o", at, DEFAULT_PRICES)).toBeNull();
    expect(requestCost(u, "toString", at, DEFAULT_PRICES)).toBeNull();
  });

  it("a table without a peak rule has no peak hours", () => {
    expect(isPeak(new Date("2026-09-15T02:30:00Z"), null)).toBe(false);
  });
});

describe("the usage ledger", () => {
  const table: PriceTable = { models: { m: { cache_hit: 1, cache_miss: 10, output: 100 } }, peak: null };
  const body = { model: "m", messages: [{ role: "user", content: "x" }] } as ChatRequest;
  const request = (ref: { agent: "parent" | "child"; delegation?: number }): AgentEvent => ({ ...ref, type: "request", step: 1, body, attempt: 1 });
  const P = { agent: "parent" } as const;
  const C1 = { agent: "child", delegation: 1 } as const;
  const C2 = { agent: "child", delegation: 2 } as const;

  it("prices each answered request and splits the parent from each child; an instruction starts from zero, the run keeps counting", () => {
    const ledger = createUsageLedger({ table, now: () => new Date(0) });
    const events: AgentEvent[] = [
      { ...P, type: "turn_start", instruction: "one" },
      request(P),
      responseEvent(P, usage(1000, 100, 600)), // 600 × 1 + 400 × 10 + 100 × 100 = 14,600 micro-dollars
      { ...P, type: "delegation_start", number: 1, kind: "delegate", mode: "full", task: "t" },
      request(C1),
      responseEvent(C1, usage(2000, 10, 1900)), // 1,900 + 1,000 + 1,000 = 3,900
      request(C1),
      responseEvent(C1, undefined), // no usage: not counted
      { ...P, type: "delegation_start", number: 2, kind: "review", mode: null, task: "f" },
      request(C2),
      responseEvent(C2, usage(500, 50, 0)), // 5,000 + 5,000 = 10,000
      { ...P, type: "turn_start", instruction: "two" },
      request(P),
      responseEvent(P, usage(100, 1, 0)), // 1,000 + 100 = 1,100
    ];
    for (const event of events) ledger.observe(event);

    const instruction = ledger.instruction();
    expect(instruction.total).toEqual({ requests: 1, prompt_tokens: 100, completion_tokens: 1, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 100, cost_usd: 0.0011 });
    expect(instruction.delegations).toEqual([]);

    const run = ledger.run();
    expect(run.total).toEqual({ requests: 4, prompt_tokens: 3600, completion_tokens: 161, prompt_cache_hit_tokens: 2500, prompt_cache_miss_tokens: 1100, cost_usd: 0.0296 });
    expect(byAgent(run)).toEqual([
      { agent: "parent", requests: 2, prompt_tokens: 1100, completion_tokens: 101, prompt_cache_hit_tokens: 600, prompt_cache_miss_tokens: 500, cost_usd: 0.0157 },
      { agent: "child", delegation: 1, mode: "full", requests: 1, prompt_tokens: 2000, completion_tokens: 10, prompt_cache_hit_tokens: 1900, prompt_cache_miss_tokens: 100, cost_usd: 0.0039 },
      { agent: "child", delegation: 2, kind: "review", requests: 1, prompt_tokens: 500, completion_tokens: 50, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 500, cost_usd: 0.01 },
    ]);
    expect(run.children).toMatchObject({ requests: 2, cost_usd: 0.0139 });
  });

  it("a request whose model has no price makes the cost unknown (null), not zero", () => {
    const ledger = createUsageLedger({ table, now: () => new Date(0) });
    ledger.observe({ ...P, type: "request", step: 1, body: { ...body, model: "other" }, attempt: 1 });
    ledger.observe(responseEvent(P, usage(10, 1, 0)));
    expect(ledger.run().total).toMatchObject({ requests: 1, cost_usd: null });
  });
});

describe("end to end", () => {
  // Round figures make the hand computation easy to follow: $1, $2 and $4 per million tokens.
  const PRICES = { models: { "deepseek-flash": { cache_hit: 1, cache_miss: 2, output: 4 } } };
  const dollars = (u: Usage) => (u.prompt_cache_hit_tokens * 1 + (u.prompt_tokens - u.prompt_cache_hit_tokens) * 2 + u.completion_tokens * 4) / 1e6;
  const figures = (...us: Usage[]) => ({
    requests: us.length,
    prompt_tokens: us.reduce((s, u) => s + u.prompt_tokens, 0),
    completion_tokens: us.reduce((s, u) => s + u.completion_tokens, 0),
    prompt_cache_hit_tokens: us.reduce((s, u) => s + u.prompt_cache_hit_tokens, 0),
    prompt_cache_miss_tokens: us.reduce((s, u) => s + u.prompt_cache_miss_tokens, 0),
    cost_usd: expect.closeTo(
      us.reduce((s, u) => s + dollars(u), 0),
      9,
    ),
  });
  const comma = (n: number) => n.toLocaleString("en-US");

  it("--json's by_agent, stderr's split line, record.json and `hel sessions show` give each agent's tokens and dollars, from HEL_PRICES", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "Say which files exist." }) }] }, { content: "Only README.md." }, { content: "There is only README.md." }],
    });
    const project = await tempProject();
    const out = await tempProject();
    const prices = join(out, "prices.json");
    await writeFile(prices, JSON.stringify(PRICES));
    const result = await runHel({ args: ["-C", project, "--delegate", "task-only", "--json", "--record", out, "list the files"], baseUrl: sim.url, env: { HEL_PRICES: prices } });
    expect(result.code).toBe(0);
    const [p1, child, p2] = sim.requests.map((r) => r.usage!);
    const json = JSON.parse(result.stdout);
    expect(json.usage).toEqual({
      ...figures(p1!, child!, p2!),
      by_agent: [
        { agent: "parent", ...figures(p1!, p2!) },
        { agent: "child", delegation: 1, mode: "task-only", ...figures(child!) },
      ],
      repairs: 0,
    });

    // stderr: the instruction's figures and dollars, then the parent's share and the subagents'.
    const total = figures(p1!, child!, p2!);
    const parentDollars = dollars(p1!) + dollars(p2!);
    const childDollars = dollars(child!);
    const ratio = Math.round((total.prompt_cache_hit_tokens / total.prompt_tokens) * 100);
    const tokens = (...us: Usage[]) => comma(us.reduce((s, u) => s + u.prompt_tokens + u.completion_tokens, 0));
    expect(result.stderr).toContain(
      `3 requests · ${comma(total.prompt_tokens)} input tokens (${comma(total.prompt_cache_hit_tokens)} cached, ${ratio}%) · ${comma(total.completion_tokens)} output · $${(parentDollars + childDollars).toFixed(4)}` +
        ` (parent $${parentDollars.toFixed(4)}, ${tokens(p1!, p2!)} tokens; 1 subagent $${childDollars.toFixed(4)}, ${tokens(child!)} tokens) · context ~`,
    );

    const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
    expect(record.usage.child).toEqual(figures(child!));
    expect(record.usage.by_agent).toEqual(json.usage.by_agent);
    const delegation = JSON.parse(await readFile(join(out, "raw", "delegations.jsonl"), "utf8"));
    expect(delegation).toMatchObject({ delegation: 1, kind: "delegate", mode: "task-only", cost_usd: expect.closeTo(childDollars, 9) });

    const show = await runHel({ args: ["-C", project, "sessions", "show", json.session_id] });
    expect(show.stdout).toContain(`subagents (costs are estimates)\n  #1  task-only  completed  1 request  ${tokens(child!)} tokens  $${childDollars.toFixed(4)}  Say which files exist.\n`);
    expect(show.stdout).toContain(`── subagent 1 (task-only) ── completed, 1 request, ${tokens(child!)} tokens, $${childDollars.toFixed(4)}`);
    const shown = JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", "--json", json.session_id] })).stdout);
    expect(shown.child_transcripts[0]).toMatchObject({ kind: "delegate", mode: "task-only", cost_usd: expect.closeTo(childDollars, 9) });
  });

  it("without subagents the line has no split; a model without a price shows no dollars", async () => {
    sim = await startSimulator({ script: [{ content: "hi" }] });
    const project = await tempProject();
    const result = await runHel({ args: ["-C", project, "--json", "--model", "deepseek-flash", "hi"], baseUrl: sim.url, env: { HEL_PRICES: undefined } });
    const line = result.stderr.split("\n").find((l) => l.includes("context ~"))!;
    expect(line).toMatch(/^1 request · [\d,]+ input tokens \([\d,]+ cached, \d+%\) · [\d,]+ output · \$0\.\d{4} · context ~[\d,]+ tokens$/);
    expect(JSON.parse(result.stdout).usage.cost_usd).toBeGreaterThan(0);

    const project2 = await tempProject();
    const prices = join(await tempProject(), "prices.json");
    await writeFile(prices, JSON.stringify({ models: {} }));
    sim.push({ content: "hi" });
    const unpriced = await runHel({ args: ["-C", project2, "--json", "hi"], baseUrl: sim.url, env: { HEL_PRICES: prices } });
    expect(unpriced.code).toBe(0);
    expect(JSON.parse(unpriced.stdout).usage.cost_usd).toBeNull();
    expect(unpriced.stderr).toMatch(/· [\d,]+ output · context ~/);
  });
});

describe("a bad HEL_PRICES is a usage error: one line, exit 2, no request sent", () => {
  it.each([
    ["a missing file", null, /^hel: HEL_PRICES: .*missing\.json is not a readable JSON file \(ENOENT\) — fix the file \(the README shows the format\) or unset HEL_PRICES$/],
    ["a file that is not JSON", "{ models: ", /^hel: HEL_PRICES: .*\.json is not a readable JSON file \(.*JSON.*\) — fix the file/],
    ["a negative price", JSON.stringify({ models: { "deepseek-flash": { cache_hit: -1, cache_miss: 1, output: 1 } } }), /^hel: HEL_PRICES: .*\.json: models\.deepseek-flash\.cache_hit: .*>=0 — fix the file/],
    ["a misspelt field", JSON.stringify({ models: { "deepseek-flash": { cache_hit: 1, cache_miss: 1, ouput: 1 } } }), /^hel: HEL_PRICES: .*\.json: models\.deepseek-flash\.output: .* — fix the file/],
    ["a bad peak rule", JSON.stringify({ models: {}, peak: { multiplier: 2, weekdays: [7], hours: [] } }), /^hel: HEL_PRICES: .*\.json: peak\.weekdays\.0: .* — fix the file/],
  ])("%s", async (_name, content, message) => {
    sim = await startSimulator({ script: [{ content: "hi" }] });
    const project = await tempProject();
    const file = join(project, content === null ? "missing.json" : "prices.json");
    if (content !== null) await writeFile(file, content);
    const result = await runHel({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { HEL_PRICES: file } });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(message);
    expect(sim.requests).toHaveLength(0);
  });
});
