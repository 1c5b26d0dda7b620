// Numbers and their presentation for `npm run bench`. Contract: the bench reports medians and ratios
// next to their targets; it never asserts, so nothing here throws on a missed target — a row only
// carries a ✓ or ✗ for the reader.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A figure for a note: fixed digits, "n/a" for what could not be measured. */
export const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

/** A size for a label or note: MB from a million bytes up, KB below. */
export const mb = (bytes: number): string => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} KB`);

export type Unit = "ms" | "s" | "MB" | "x" | "ms/MB" | "%" | "tokens";

/**
 * A target is "under" a limit, "atLeast" a floor (a share of cache hits), or "about" a ratio of 1
 * (within tolerance), e.g. peak RSS 1 GB vs 1 MB.
 */
export type Target = { kind: "under"; limit: number; unit: Unit } | { kind: "atLeast"; limit: number; unit: Unit } | { kind: "about"; value: number; tolerance: number };

export interface Row {
  /** Machine key for the JSON file, e.g. "harness.loop.1000". */
  key: string;
  label: string;
  value: number;
  unit: Unit;
  target?: Target;
  /** How many samples the median is over, or a short remark. */
  note?: string;
  /** Further figures of the row (the ones its note shows), for the JSON file. */
  extra?: Record<string, number>;
}

export interface Section {
  title: string;
  rows: Row[];
  /** Method notes printed under the section. */
  footnotes: string[];
}

export function meets(row: Row): boolean | null {
  const t = row.target;
  if (!t || !Number.isFinite(row.value)) return t ? false : null;
  if (t.kind === "under") return convert(row.value, row.unit, t.unit) < t.limit;
  if (t.kind === "atLeast") return convert(row.value, row.unit, t.unit) >= t.limit;
  return Math.abs(row.value - t.value) <= t.tolerance;
}

function convert(value: number, from: Unit, to: Unit): number {
  if (from === to) return value;
  if (from === "s" && to === "ms") return value * 1000;
  if (from === "ms" && to === "s") return value / 1000;
  return value;
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return "n/a";
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  const n = value.toFixed(digits);
  return unit === "x" ? `${n}×` : `${n} ${unit}`;
}

function formatTarget(t: Target | undefined): string {
  if (!t) return "";
  if (t.kind === "under") return `< ${t.limit} ${t.unit}`;
  if (t.kind === "atLeast") return `≥ ${t.limit} ${t.unit}`;
  return `≈ ${t.value}× (±${t.tolerance})`;
}

/** Plain-text table, columns padded to their widest cell; one block per section. */
export function renderTable(sections: readonly Section[]): string {
  const header = ["measurement", "median", "target", "", "samples / note"];
  const body: (string[] | string)[] = [];
  for (const s of sections) {
    body.push(`== ${s.title}`);
    for (const r of s.rows) {
      const ok = meets(r);
      body.push([`  ${r.label}`, formatValue(r.value, r.unit), formatTarget(r.target), ok === null ? "" : ok ? "✓" : "✗", r.note ?? ""]);
    }
    for (const f of s.footnotes) body.push(`   ${f}`);
  }
  const cells = [header, ...body.filter((b): b is string[] => Array.isArray(b))];
  const widths = header.map((_, i) => Math.max(...cells.map((c) => [...c[i]!].length)));
  const line = (c: string[]): string =>
    c
      .map((cell, i) => (i === 1 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out = [line(header), "-".repeat(widths.reduce((a, b) => a + b + 2, -2))];
  for (const b of body) out.push(Array.isArray(b) ? line(b) : b);
  return out.join("\n");
}

export function toJson(sections: readonly Section[], meta: Record<string, unknown>): object {
  return {
    ...meta,
    sections: sections.map((s) => ({
      title: s.title,
      footnotes: s.footnotes,
      rows: s.rows.map((r) => ({ key: r.key, label: r.label, value: r.value, unit: r.unit, target: r.target ?? null, meets: meets(r), note: r.note ?? null, ...(r.extra ? { extra: r.extra } : {}) })),
    })),
  };
}
