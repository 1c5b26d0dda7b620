// /cost: the spend per agent and in total, and, with --max-cost, the spend against it.
import { describe, expect, it } from "vitest";
import { emptySpend, type UsageReport } from "../../../src/agent/usage-ledger.js";
import { formatCost } from "../../../src/cli/term/cost-view.js";

const spend = (cost: number | null) => ({ ...emptySpend(), requests: 2, prompt_tokens: 1500, prompt_cache_hit_tokens: 1000, completion_tokens: 40, cost_usd: cost });
const report = (cost: number | null): UsageReport => ({ total: spend(cost), parent: spend(cost), children: emptySpend(), delegations: [], repairs: 0 });

describe("formatCost", () => {
  it("without --max-cost: the parent and the total", () => {
    expect(formatCost(report(0.0123))).toEqual(["parent  2 requests, 1,500 in (1,000 cached), 40 out, $0.0123", "total   2 requests, 1,500 in (1,000 cached), 40 out, $0.0123"]);
  });

  it("requests answered without usage are marked estimated, where there are any", () => {
    const estimated = { ...spend(null), estimated_requests: 1 };
    expect(formatCost({ ...report(null), parent: estimated, total: estimated })).toEqual([
      "parent  2 requests (1 estimated), 1,500 in (1,000 cached), 40 out, cost unknown",
      "total   2 requests (1 estimated), 1,500 in (1,000 cached), 40 out, cost unknown",
    ]);
  });

  it("with --max-cost: a last line with the spend against it and what is left", () => {
    expect(formatCost(report(0.0123), 0.05).at(-1)).toBe("budget: $0.0123 of --max-cost $0.0500 spent, $0.0377 left");
    expect(formatCost(report(null), 0.05).at(-1)).toBe("budget: --max-cost $0.0500, spend unknown (a model has no price)");
    expect(formatCost({ ...report(0), total: emptySpend() }, 0.05)).toEqual(["no requests yet in this session", "budget: $0.0000 of --max-cost $0.0500 spent, $0.0500 left"]);
  });
});
