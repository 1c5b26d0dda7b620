// `hel stats` as a person reads it: a table of each UTC day's models, then each model over the whole
// window and the total, with the dollars split into DeepSeek's peak and off-peak hours; below it, what
// the figures leave out (sessions that keep no requests, records that are not hel's, models without a price).
import { formatUsd, type PeakRule } from "../../model/prices.js";
import type { Row, StatsReport } from "../../session/request-stats.js";
import { count, groupDigits } from "../../format.js";

const HEAD = ["DAY (UTC)", "MODEL", "REQUESTS", "PROMPT TOKENS", "CACHE HIT", "OUTPUT TOKENS", "DOLLARS", "PEAK", "OFF-PEAK"];
/** Text columns are aligned left, figures right. */
const LEFT = 2;

function cells(day: string, model: string, row: Row): string[] {
  return [
    day,
    model,
    groupDigits(row.requests),
    groupDigits(row.prompt_tokens),
    `${Math.round(row.cache_hit_share * 100)}%`,
    groupDigits(row.completion_tokens),
    formatUsd(row.cost_usd),
    formatUsd(row.peak.cost_usd),
    formatUsd(row.off_peak.cost_usd),
  ];
}

function table(rows: string[][]): string {
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i < LEFT ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function peakHours(rule: PeakRule | null): string {
  if (!rule) return "the price table has no peak hours";
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const hours = rule.hours.map(([from, to]) => `${String(from).padStart(2, "0")}:00–${String(to).padStart(2, "0")}:00`).join(" and ");
  return `peak hours cost ×${rule.multiplier}: ${rule.weekdays.map((d) => days[d]).join(" ")}, ${hours} UTC`;
}

export function formatStats(report: StatsReport, peak: PeakRule | null): string {
  const window = report.days === null ? "every recorded day" : `the last ${count(report.days, "day")} (since ${report.from})`;
  if (report.total.requests === 0) return `no requests in ${window} — hel records each session's requests as it saves them\n${notes(report).join("\n")}`.trimEnd() + "\n";
  const rows = [HEAD];
  for (const day of report.by_day) {
    for (const m of day.models) rows.push(cells(day.day, m.model, m));
    if (day.models.length > 1) rows.push(cells(day.day, "all models", day));
  }
  for (const m of report.by_model) rows.push(cells("all days", m.model, m));
  rows.push(cells("all days", "all models", report.total));
  const lines = [`${count(report.sessions, "session")} over ${window}; dollars are estimates at DeepSeek's prices (${peakHours(peak)})`, "", table(rows), ...notes(report)];
  return `${lines.join("\n")}\n`;
}

function notes(report: StatsReport): string[] {
  const out: string[] = [];
  if (report.unrecorded_sessions > 0)
    out.push(
      `${count(report.unrecorded_sessions, "session")} that ${report.unrecorded_sessions === 1 ? "keeps" : "keep"} no record of ${report.unrecorded_sessions === 1 ? "its" : "their"} requests (saved by an older hel, or unreadable) ${report.unrecorded_sessions === 1 ? "is" : "are"} not counted`,
    );
  if (report.skipped_requests > 0)
    out.push(`${count(report.skipped_requests, "kept request")} that ${report.skipped_requests === 1 ? "was" : "were"} not hel's record of one ${report.skipped_requests === 1 ? "is" : "are"} not counted`);
  if (report.total.unpriced_requests > 0)
    out.push(`${count(report.total.unpriced_requests, "request")} named a model the price table has no price for: ${report.total.unpriced_requests === 1 ? "its" : "their"} dollars are not in the sums`);
  if (report.total.estimated_requests > 0) out.push(`${count(report.total.estimated_requests, "request")} came back without usage: ${report.total.estimated_requests === 1 ? "its" : "their"} tokens are hel's estimate`);
  return out.length > 0 ? ["", ...out] : out;
}
