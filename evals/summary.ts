// A suite's summary, from its runs: one row per condition (runs passed per judge; requests parent/child,
// input, cache hit and miss, output tokens and wall time as means over the repetitions; the hit ratio as
// Σ hit / Σ input) and the per-request cache table of the suite's key requests. `summarize` is pure;
// `renderMarkdown` prints it as padded Markdown tables, readable in a terminal as well.
import { emptyTotals, sumTotals } from "../src/agent/usage.js";
import type { ConditionRow, KeyFigures, KeyRequestRow, RunResult, Summary } from "./results.js";
import type { Suite } from "./suite.js";

const ratio = (hit: number, input: number): number => (input === 0 ? 0 : hit / input);

export function summarize(
  suite: Suite,
  runs: readonly RunResult[],
  meta: { conditions: string[]; skipped?: { condition: string; reason: string }[]; repeat: number; timeoutMs: number; mode: "offline" | "online"; model: string; now?: Date },
): Summary {
  const rows: ConditionRow[] = [];
  const keyRows: KeyRequestRow[] = [];
  for (const condition of meta.conditions) {
    const mine = runs.filter((r) => r.condition === condition);
    const n = Math.max(1, mine.length);
    const totals = { all: emptyTotals(), parent: emptyTotals(), child: emptyTotals(), wall_ms: 0 };
    for (const r of mine) {
      totals.all = sumTotals(totals.all, r.totals.all);
      totals.parent = sumTotals(totals.parent, r.totals.parent);
      totals.child = sumTotals(totals.child, r.totals.child);
      totals.wall_ms += r.wall_ms;
    }
    const passed: Record<string, number> = {};
    for (const j of suite.judges) passed[j.id] = mine.filter((r) => r.judges[j.id]?.pass).length;
    rows.push({
      condition,
      description: suite.conditions[condition] ?? "",
      runs: mine.length,
      completed: mine.filter((r) => r.completed).length,
      timed_out: mine.filter((r) => r.timed_out).length,
      passed,
      totals,
      mean: {
        requests_parent: totals.parent.requests / n,
        requests_child: totals.child.requests / n,
        prompt_tokens: totals.all.prompt_tokens / n,
        prompt_cache_hit_tokens: totals.all.prompt_cache_hit_tokens / n,
        prompt_cache_miss_tokens: totals.all.prompt_cache_miss_tokens / n,
        completion_tokens: totals.all.completion_tokens / n,
        wall_s: totals.wall_ms / 1000 / n,
      },
      hit_ratio: ratio(totals.all.prompt_cache_hit_tokens, totals.all.prompt_tokens),
      cost: {
        peak_prompt_tokens: Math.max(0, ...mine.map((r) => r.cost.peak_prompt_tokens)),
        usd: mine.some((r) => r.cost.usd === null) ? null : mine.reduce((sum, r) => sum + r.cost.usd!, 0) / n,
        fresh_equivalent: mine.reduce((sum, r) => sum + r.cost.fresh_equivalent, 0) / n,
      },
      measures: meanMeasures(mine.map((r) => r.measures)),
    });
    for (const k of suite.keyRequests) {
      const perRun = mine.map((r) => r.key_requests[k.label] ?? null);
      const present = perRun.filter((f): f is KeyFigures => f !== null);
      const m = present.length;
      const sum = (key: "prompt_tokens" | "prompt_cache_hit_tokens" | "prompt_cache_miss_tokens") => present.reduce((s, f) => s + f[key], 0);
      keyRows.push({
        condition,
        label: k.label,
        runs: m,
        mean: m ? { prompt_tokens: sum("prompt_tokens") / m, prompt_cache_hit_tokens: sum("prompt_cache_hit_tokens") / m, prompt_cache_miss_tokens: sum("prompt_cache_miss_tokens") / m } : null,
        hit_ratio: m ? ratio(sum("prompt_cache_hit_tokens"), sum("prompt_tokens")) : null,
        per_run: perRun,
      });
    }
  }
  return {
    suite: suite.name,
    title: suite.title,
    mode: meta.mode,
    model: meta.model,
    simulator_policy: meta.mode === "offline" ? suite.policy : null,
    repeat: meta.repeat,
    timeout_s: meta.timeoutMs / 1000,
    generated_at: (meta.now ?? new Date()).toISOString(),
    judges: suite.judges.map((j) => ({ id: j.id, title: j.title, description: j.description })),
    conditions: rows,
    skipped: meta.skipped ?? [],
    key_requests: keyRows,
    failures: runs.flatMap((r) =>
      Object.entries(r.judges)
        .filter(([, v]) => !v.pass)
        .map(([judge, v]) => ({ condition: r.condition, repetition: r.repetition, judge, detail: v.detail })),
    ),
    problems: runs.flatMap((r) => r.problems.map((problem) => ({ condition: r.condition, repetition: r.repetition, problem }))),
    runs: runs.map((r) => r.path),
  };
}

function meanMeasures(perRun: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  const keys = [...new Set(perRun.flatMap((m) => Object.keys(m)))];
  for (const key of keys) {
    const values = perRun.flatMap((m) => (key in m ? [m[key]!] : []));
    out[key] = values.reduce((a, b) => a + b, 0) / values.length;
  }
  return out;
}

// ------------------------------------------------------------------------------------------- rendering

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
/** A mean: whole numbers as they are, others with one decimal. */
const mean = (n: number): string => (Number.isInteger(n) ? int(n) : n.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 }));
const pct = (r: number): string => `${(100 * r).toFixed(1)}%`;

/** A Markdown table with padded cells; `right` marks the columns aligned right (numbers). */
export function table(head: string[], rows: string[][], right: boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? "").length)));
  const cell = (text: string, i: number) => (right[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!));
  const line = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(head), rule, ...rows.map(line)].join("\n");
}

export function conditionTable(s: Summary): string {
  const head = ["condition", "runs", ...s.judges.map((j) => j.title), "requests (parent/child)", "input", "cache hit", "cache miss", "hit ratio", "output", "wall s"];
  const rows = s.conditions.map((c) => [
    c.condition,
    String(c.runs),
    ...s.judges.map((j) => `${c.passed[j.id] ?? 0}/${c.runs}`),
    `${mean(c.mean.requests_parent)} / ${mean(c.mean.requests_child)}`,
    mean(c.mean.prompt_tokens),
    mean(c.mean.prompt_cache_hit_tokens),
    mean(c.mean.prompt_cache_miss_tokens),
    pct(c.hit_ratio),
    mean(c.mean.completion_tokens),
    c.mean.wall_s.toFixed(2),
  ]);
  return table(
    head,
    rows,
    head.map((_, i) => i >= 1),
  );
}

/** The key requests, one row each; a condition that made none of them gets a note instead of empty rows. */
export function keyRequestTable(s: Summary): string {
  const head = ["condition", "request", "runs", "input", "cache hit", "cache miss", "hit ratio"];
  const rows = s.key_requests
    .filter((k) => k.mean)
    .map((k) => [k.condition, k.label, String(k.runs), mean(k.mean!.prompt_tokens), mean(k.mean!.prompt_cache_hit_tokens), mean(k.mean!.prompt_cache_miss_tokens), pct(k.hit_ratio ?? 0)]);
  const none = s.conditions.map((c) => c.condition).filter((c) => !s.key_requests.some((k) => k.condition === c && k.mean));
  const note = none.length ? `\n\n${none.map((c) => `\`${c}\``).join(", ")}: none of these requests (${none.length === 1 ? "it made" : "they made"} no such request).` : "";
  return (
    table(
      head,
      rows,
      head.map((_, i) => i >= 2),
    ) + note
  );
}

/** Per condition: the largest context, output, and the cost in dollars and in fresh-token equivalents. */
export function costSummaryTable(s: Summary): string {
  const head = ["condition", "requests", "input", "hit share", "largest context", "output", "cost (DeepSeek off-peak)", "fresh-token equivalents"];
  const rows = s.conditions.map((c) => [
    c.condition,
    mean(c.mean.requests_parent + c.mean.requests_child),
    mean(c.mean.prompt_tokens),
    pct(c.hit_ratio),
    int(c.cost.peak_prompt_tokens),
    mean(c.mean.completion_tokens),
    c.cost.usd === null ? "no price" : `$${c.cost.usd.toFixed(4)}`,
    int(c.cost.fresh_equivalent),
  ]);
  return table(
    head,
    rows,
    head.map((_, i) => i >= 1),
  );
}

export function modeLine(s: Summary): string {
  return s.mode === "offline"
    ? `Offline: hel's bundled DeepSeek simulator played the model (policy \`${s.simulator_policy}\`, a fresh simulator per run). ` +
        "These figures measure hel's requests and the simulator's prefix cache (64-token blocks), not DeepSeek's model."
    : `Online: DeepSeek, model \`${s.model}\`.`;
}

/** `appendix`: the suite's own section (Suite.appendix), after the per-request table. */
export function renderMarkdown(s: Summary, appendix?: string): string {
  const reps = `${s.repeat} repetition${s.repeat === 1 ? "" : "s"} per condition`;
  const out = [
    `# ${s.suite} — ${s.title}`,
    "",
    modeLine(s),
    `${reps} · limit ${s.timeout_s} s per run · ${s.generated_at}`,
    "",
    conditionTable(s),
    "",
    "Judge columns count the runs that passed. Requests, tokens and wall time are means over the repetitions; " + "input = cache hit + cache miss; the hit ratio is Σ cache hit / Σ input.",
    "",
    ...(s.skipped.length ? [`Not run: ${s.skipped.map((k) => `\`${k.condition}\` (${k.reason})`).join("; ")}.`, ""] : []),
    "## Cost",
    "",
    costSummaryTable(s),
    "",
    `Means over the repetitions, every agent's requests together; the largest context is the most input tokens any one request carried. ` +
      `Dollars at DeepSeek's off-peak prices for \`${s.model}\` (hel's price table); fresh-token equivalents as the seed article counts them: ` +
      `a cached input token 0.1, an uncached one (written into the cache) 1.25, output not counted.`,
    "",
    "## Per-request cache",
    "",
    keyRequestTable(s),
    "",
    "Means over the runs that made the request; hit ratio = Σ cache hit / Σ input.",
    "",
    ...(appendix ? [appendix.trimEnd(), ""] : []),
    "## Conditions",
    "",
    ...s.conditions.map((c) => `- \`${c.condition}\`: ${c.description}`),
    "",
    "## Judges",
    "",
    ...s.judges.map((j) => `- ${j.title} (\`${j.id}\`): ${j.description}`),
    "",
  ];
  if (s.failures.length) {
    out.push("## Failed judges", "", ...s.failures.map((f) => `- ${f.condition} run ${f.repetition} · ${f.judge}: ${f.detail}`), "");
  }
  if (s.problems.length) {
    out.push("## Problems", "", ...s.problems.map((p) => `- ${p.condition} run ${p.repetition}: ${p.problem}`), "");
  }
  return out.join("\n");
}
