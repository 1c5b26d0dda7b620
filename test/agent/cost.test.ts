// Cost per agent: the price table's dollar math against a hand computation (peak hours included), and
// the one usage ledger every reader asks. What a run shows of it is test/cli/cost.test.ts's.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { byAgent, createUsageLedger } from "../../src/agent/usage-ledger.js";
import { DEFAULT_PRICES, isPeak, requestCost, type PriceTable } from "../../src/model/prices.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { responseEvent, usage } from "../helpers/fake-model.js";

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
