// The session as Markdown text (`hel sessions export --format md`): what the page shows, for reading
// in an editor or pasting into an issue. Pure. The model's own Markdown is kept as it wrote it, under
// a heading; tool output and diffs go in fenced blocks whose fence is longer than any run of
// backticks inside, so nothing in them closes the block early.
import type { FileEdit } from "../changes/file-edit.js";
import { formatUsd } from "../model/prices.js";
import type { AgentSpend, Entry, ExportedChild, SessionDocument } from "./document.js";

const dollars = (usd: number | null): string => (usd === null ? "unknown" : formatUsd(usd));
const digits = (n: number): string => n.toLocaleString("en-US");

function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

const quoted = (text: string): string =>
  text
    .split("\n")
    .map((l) => `> ${l}`.trimEnd())
    .join("\n");

export function renderSessionMarkdown(doc: SessionDocument): string {
  const s = doc.session;
  const t = doc.spend.total;
  const children = new Map(doc.children.map((c) => [c.number, c]));
  const nested = new Set<number>();
  const lines = [
    `# hel session ${s.id}`,
    "",
    ...(s.written_by_hel ? [] : ["**Not written by hel here** (cloned, copied, or saved by an older hel): shown as it is.", ""]),
    `- model: ${s.model}${s.effort ? ` (effort ${s.effort})` : ""}`,
    `- started: ${s.created_at}, saved: ${s.updated_at}`,
    `- requests: ${digits(t.requests)}; prompt tokens: ${digits(t.prompt_tokens)} (${digits(t.prompt_cache_hit_tokens)} cached); output tokens: ${digits(t.completion_tokens)}; cost: ${dollars(t.cost_usd)}`,
    ...(s.forked_from ? [`- forked from ${s.forked_from.session_id} at turn ${s.forked_from.turn}`] : []),
    ...(s.last_turn ? [`- last turn: ${s.last_turn.exit_reason}${s.last_turn.error ? `: ${s.last_turn.error}` : ""}`] : []),
    "",
    "## Requests and dollars",
    "",
    "| agent | requests | cached prompt | uncached prompt | output | dollars |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...[...doc.spend.by_agent, { agent: "parent" as const, label: "**total**", ...t }].map(spendRow),
    "",
  ];
  if (doc.requests.length > 0) {
    lines.push("| # | agent | model | answered | cached prompt | uncached prompt | output | dollars |", "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: |");
    doc.requests.forEach((r, i) =>
      lines.push(
        `| ${i + 1} | ${r.agent === "parent" ? "parent" : `#${r.delegation ?? "?"}`} | ${r.model} | ${r.at} | ${digits(r.prompt_cache_hit_tokens)} | ${digits(r.prompt_cache_miss_tokens)} | ${digits(r.completion_tokens)}${r.estimated ? " (estimated)" : ""} | ${dollars(r.cost_usd)} |`,
      ),
    );
    lines.push("");
  }
  if (doc.turns.length > 0) {
    lines.push("## Turns and checkpoints", "");
    for (const turn of doc.turns) {
      const points = doc.checkpoints.filter((c) => c.turn === turn.n).map((c) => `${c.kind} ${c.commit.slice(0, 12)}`);
      lines.push(`${turn.n}. ${turn.preview}${points.length > 0 ? ` — checkpoints: ${points.join(", ")}` : ""}`);
    }
    lines.push("");
  }
  lines.push("## Transcript", "", entriesMarkdown(doc.entries, children, nested, 3));
  const loose = doc.children.filter((c) => !nested.has(c.number));
  if (loose.length > 0) lines.push("", "## Other subagents", "", ...loose.map((c) => childMarkdown(c, children, nested, 3)));
  if (doc.archive.length > 0) {
    lines.push("", "## Folds and compactions");
    for (const a of doc.archive) {
      lines.push("", `### ${a.auto ? "auto-fold" : a.kind} ${a.handle}${a.first_stamp === null ? "" : ` #${a.first_stamp}–#${a.last_stamp}`}`, "", fenced(a.note));
      if (a.files.length > 0) lines.push("", `files: ${a.files.join(", ")}`);
      lines.push("", a.entries === null ? `_${a.problem ?? "its file could not be read"}_` : entriesMarkdown(a.entries, children, nested, 4));
    }
  }
  return `${lines.join("\n").replace(/\n{3,}/g, "\n\n")}\n`;
}

function spendRow(a: AgentSpend): string {
  return `| ${a.label} | ${digits(a.requests)} | ${digits(a.prompt_cache_hit_tokens)} | ${digits(a.prompt_cache_miss_tokens)} | ${digits(a.completion_tokens)} | ${dollars(a.cost_usd)} |`;
}

type Children = ReadonlyMap<number, ExportedChild>;

function entriesMarkdown(entries: readonly Entry[], children: Children, nested: Set<number>, depth: number): string {
  const heading = "#".repeat(Math.min(depth, 6));
  const out: string[] = [];
  for (const e of entries) {
    switch (e.type) {
      case "system":
        break;
      case "instruction":
        out.push(`${heading} ${e.turn ? `Turn ${e.turn}` : "Instruction"}${e.stamp ? ` (#${e.stamp})` : ""}`, "", e.text, "");
        break;
      case "note":
        out.push(`_note${e.archive ? ` (archived span ${e.archive})` : ""}:_`, "", fenced(e.text), "");
        break;
      case "answer":
        if (e.reasoning) out.push("_thinking:_", "", quoted(e.reasoning), "");
        if (e.text) out.push(e.text, "");
        break;
      case "tool_call": {
        out.push(`**→ ${e.name}**${e.archive ? ` (archived span ${e.archive})` : ""}`, "", fenced(e.arguments, "json"), "");
        if (e.edit) out.push(fenced(diffText(e.edit), "diff"), "");
        if (e.result !== null) out.push(fenced(e.result), "");
        const child = e.child === undefined ? undefined : children.get(e.child);
        if (child) out.push(childMarkdown(child, children, nested, depth + 1), "");
        break;
      }
    }
  }
  return out.join("\n");
}

function childMarkdown(child: ExportedChild, children: Children, nested: Set<number>, depth: number): string {
  nested.add(child.number);
  const heading = "#".repeat(Math.min(depth, 6));
  const what = child.agent_name ? `${child.agent_name}, ${child.mode ?? child.kind}` : (child.mode ?? child.kind);
  return [
    `${heading} Subagent #${child.number} (${what}): ${child.exit_reason}, ${digits(child.spend.requests)} requests, ${dollars(child.spend.cost_usd)}`,
    "",
    ...(child.unvouched ? ["_This transcript was not written by hel here: shown as it is._", ""] : []),
    entriesMarkdown(child.entries, children, nested, depth + 1),
  ].join("\n");
}

function diffText(edit: FileEdit): string {
  return [`--- ${edit.created ? "/dev/null" : `a/${edit.path}`}`, `+++ b/${edit.path}`, ...edit.hunks.flatMap((h) => [`@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`, ...h.lines])].join("\n");
}
