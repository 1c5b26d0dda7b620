// --max-cost's answer before a request, and the ledger's holds for requests in flight: a request goes
// only if its most possible cost (prompt uncached, max_tokens all written) fits beside the spend and
// what requests still being answered hold; a max_tokens that does not fit whole is lowered, down to
// MIN_OUTPUT_TOKENS; a hold lasts until its agent's response event.
import { describe, expect, it } from "vitest";
import { MIN_OUTPUT_TOKENS, spendAnswer, type SpendCheck } from "../../src/agent/spend-limit.js";
import { createUsageLedger } from "../../src/agent/usage-ledger.js";
import type { PriceTable } from "../../src/model/prices.js";
import { responseEvent, usage } from "../helpers/fake-model.js";

// $1 per million input tokens, $10 per million output tokens: 1,000 input tokens are $0.001.
const table: PriceTable = { models: { m: { cache_hit: 0.1, cache_miss: 1, output: 10 } }, peak: null };
const check = (over: Partial<SpendCheck>): SpendCheck => ({ spent: 0, held: 0, promptTokens: 1000, maxTokens: 10_000, model: "m", maxCost: 1, table, at: new Date(0), ...over });

describe("spendAnswer", () => {
  it("lets a request go with its max_tokens and holds its most possible cost", () => {
    expect(spendAnswer(check({}))).toEqual({ maxTokens: 10_000, hold: expect.closeTo(0.001 + 0.1, 12) });
  });

  it("counts what requests in flight hold: a request that fits the spend alone is refused beside them, saying so", () => {
    expect(spendAnswer(check({ spent: 0.5, maxCost: 0.7 }))).toHaveProperty("maxTokens", 10_000);
    const answer = spendAnswer(check({ spent: 0.5, held: 0.2, maxCost: 0.7 }));
    expect(answer).toEqual({
      refused:
        "stopped before a request whose ~1000 input tokens ($0.0010 uncached) and 4096 output tokens would take this session's spend of $0.7000 ($0.2000 of it held for requests still being answered) past --max-cost $0.7000 — raise --max-cost to go on",
    });
  });

  it("lowers a max_tokens that does not fit whole to what does, and refuses below MIN_OUTPUT_TOKENS", () => {
    // $0.051 left: $0.001 of prompt and 5,000 output tokens.
    expect(spendAnswer(check({ spent: 0.949 }))).toEqual({ maxTokens: 5000, hold: expect.closeTo(0.051, 12) });
    const tight = 0.001 + ((MIN_OUTPUT_TOKENS - 1) * 10) / 1e6;
    expect(spendAnswer(check({ spent: 1 - tight }))).toHaveProperty("refused");
    // A max_tokens set below MIN_OUTPUT_TOKENS goes whole when it fits.
    expect(spendAnswer(check({ spent: 1 - tight, maxTokens: 1000 }))).toEqual({ maxTokens: 1000, hold: expect.closeTo(0.011, 12) });
  });

  it("refuses when a price is missing: the limit cannot be kept", () => {
    expect(spendAnswer(check({ model: "other" }))).toEqual({ refused: expect.stringContaining("the price table has no price for other") });
    expect(spendAnswer(check({ spent: null }))).toEqual({ refused: expect.stringContaining("a model this session used") });
  });
});

describe("the ledger's holds", () => {
  it("one per agent, each dropped by that agent's response (answered or failed) as its cost is added", () => {
    const ledger = createUsageLedger({ table, now: () => new Date(0) });
    const c1 = { agent: "child", delegation: 1 } as const;
    const c2 = { agent: "child", delegation: 2 } as const;
    ledger.hold({ agent: "parent" }, 0.25);
    ledger.hold(c1, 0.5);
    ledger.hold(c2, 0.125);
    expect(ledger.held()).toBe(0.875);
    ledger.observe({ agent: "parent", type: "delegation_start", number: 1, kind: "delegate", mode: "full", task: "t" });
    ledger.observe({ ...c1, type: "request", step: 1, body: { model: "m", messages: [] }, attempt: 1 });
    ledger.observe(responseEvent(c1, usage(1000, 0, 0)));
    expect(ledger.held()).toBe(0.375);
    expect(ledger.run().total.cost_usd).toBe(0.001);
    ledger.observe(responseEvent(c2, undefined));
    expect(ledger.held()).toBe(0.25);
  });
});
