// What /cost prints: the tokens and dollars this process has spent in the session so far, one line
// per agent (the parent, then each subagent in the order it started), a total, and the spend against
// --max-cost when one is set; requests answered without usage are marked estimated. Pure.
import type { UsageReport } from "../../agent/usage-ledger.js";
import type { Spend } from "../../agent/usage.js";
import { childLabel } from "../../agent/children/kinds.js";
import { formatUsd } from "../../model/prices.js";
import { groupDigits, plural } from "../../format.js";

export function formatCost(report: UsageReport, maxCost: number | null = null): string[] {
  const budget = maxCost === null ? [] : [budgetLine(report.total.cost_usd, maxCost)];
  if (report.total.requests === 0) return ["no requests yet in this session", ...budget];
  const rows: [string, Spend][] = [["parent", report.parent], ...report.delegations.map((d): [string, Spend] => [`subagent #${d.delegation} (${childLabel(d)})`, d]), ["total", report.total]];
  const width = Math.max(...rows.map(([who]) => who.length));
  return rows
    .map(([who, spend]) => {
      const tokens = `${groupDigits(spend.prompt_tokens)} in (${groupDigits(spend.prompt_cache_hit_tokens)} cached), ${groupDigits(spend.completion_tokens)} out`;
      const cost = spend.cost_usd === null ? "cost unknown" : formatUsd(spend.cost_usd);
      // Requests a server answered without usage: their tokens, and so their cost, are hel's estimate.
      const estimated = spend.estimated_requests ? ` (${spend.estimated_requests} estimated)` : "";
      return `${who.padEnd(width)}  ${plural(spend.requests, "request")}${estimated}, ${tokens}, ${cost}`;
    })
    .concat(budget);
}

function budgetLine(spent: number | null, maxCost: number): string {
  if (spent === null) return `budget: --max-cost ${formatUsd(maxCost)}, spend unknown (a model has no price)`;
  return `budget: ${formatUsd(spent)} of --max-cost ${formatUsd(maxCost)} spent, ${formatUsd(Math.max(maxCost - spent, 0))} left`;
}
