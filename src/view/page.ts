// The session as one HTML page, self-contained: its styles and its one script are inline, allowed by
// their hashes in a Content-Security-Policy that permits nothing else, so the page makes no request and
// nothing the model wrote runs (Markdown is rendered by markdown-html.ts, every other text escaped).
// Pure: the document and the page's assets (the chart script and its styles, page-assets.ts) in, HTML
// out. `hel sessions export --format html` writes it; `hel web` serves it.
import { createHash } from "node:crypto";
import type { FileEdit } from "../changes/file-edit.js";
import { formatUsd } from "../model/prices.js";
import type { AgentSpend, ArchivedSpan, Entry, ExportedChild, SessionDocument, ToolCallEntry } from "./document.js";
import { escapeHtml, markdownHtml } from "./markdown-html.js";

export interface PageAssets {
  /** The chart's script, run in the page (build/view-page.js, bundled with uPlot). */
  script: string;
  /** Its styles (uPlot's). */
  style: string;
}

/** Past this many lines or characters a tool's output is folded under its summary. */
const FOLD_LINES = 12;
const FOLD_CHARS = 1200;

const h = escapeHtml;
const sha256 = (text: string): string => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
const dollars = (usd: number | null): string => (usd === null ? "unknown" : formatUsd(usd));
const digits = (n: number): string => n.toLocaleString("en-US");

export function renderSessionPage(doc: SessionDocument, assets: PageAssets): string {
  // Inside <script>, "</script" would end the element wherever it stood (in a string, say).
  const script = assets.script.replace(/<\/(script)/gi, "<\\/$1");
  const style = `${assets.style}\n${PAGE_STYLE}`;
  // A data block is not run: the script reads the chart's figures from it. "<" is escaped so no text
  // in it can close the element.
  const agents = doc.spend.by_agent.map((a) => ({ label: a.label, cost_usd: a.cost_usd }));
  const data = JSON.stringify({ requests: doc.requests, agents }).replace(/</g, "\\u003c");
  const csp = `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(style)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const childByNumber = new Map(doc.children.map((c) => [c.number, c]));
  const nested = new Set<number>();
  const body = entriesHtml(doc.entries, childByNumber, nested);
  const loose = doc.children.filter((c) => !nested.has(c.number));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hel session ${h(doc.session.id)}</title>
<style>${style}</style>
</head>
<body>
${headerHtml(doc)}
${usageHtml(doc)}
${turnsHtml(doc)}
<main id="transcript">
<h2>Transcript</h2>
${body}
${loose.length > 0 ? `<h2>Other subagents</h2>\n${loose.map((c) => childHtml(c, childByNumber, nested)).join("\n")}` : ""}
</main>
${archiveHtml(doc.archive, childByNumber, nested)}
<script type="application/json" id="hel-data">${data}</script>
<script>${script}</script>
</body>
</html>
`;
}

function headerHtml(doc: SessionDocument): string {
  const s = doc.session;
  const total = doc.spend.total;
  const facts: [string, string][] = [
    ["model", s.model + (s.effort ? ` (effort ${s.effort})` : "")],
    ["started", s.created_at],
    ["saved", s.updated_at],
    ["requests", digits(total.requests)],
    ["prompt tokens", `${digits(total.prompt_tokens)} (${digits(total.prompt_cache_hit_tokens)} cached)`],
    ["output tokens", digits(total.completion_tokens)],
    ["cost", dollars(total.cost_usd)],
  ];
  if (s.forked_from) facts.push(["forked from", `${s.forked_from.session_id} at turn ${s.forked_from.turn}`]);
  if (s.last_turn) facts.push(["last turn", s.last_turn.exit_reason + (s.last_turn.error ? `: ${s.last_turn.error}` : "")]);
  const warning = s.written_by_hel ? "" : `<p class="warning">This session was not written by hel here (cloned, copied, or saved by an older hel): it is shown as it is.</p>`;
  return `<header>
<h1>hel session <code>${h(s.id)}</code></h1>
${warning}<dl class="facts">${facts.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join("")}</dl>
</header>`;
}

function spendRow(a: AgentSpend): string {
  const cells = [a.label, digits(a.requests), digits(a.prompt_cache_hit_tokens), digits(a.prompt_cache_miss_tokens), digits(a.completion_tokens), dollars(a.cost_usd)];
  return `<tr>${cells.map((c, i) => (i === 0 ? `<th scope="row">${h(c)}</th>` : `<td>${h(c)}</td>`)).join("")}</tr>`;
}

function usageHtml(doc: SessionDocument): string {
  const head = "<tr><th>agent</th><th>requests</th><th>cached prompt</th><th>uncached prompt</th><th>output</th><th>dollars</th></tr>";
  const requests = doc.requests.map(
    (r, i) =>
      `<tr><td>${i + 1}</td><td>${h(r.agent === "parent" ? "parent" : `#${r.delegation ?? "?"}`)}</td><td>${h(r.model)}</td><td>${h(r.at)}</td><td>${digits(r.prompt_cache_hit_tokens)}</td><td>${digits(r.prompt_cache_miss_tokens)}</td><td>${digits(r.completion_tokens)}${r.estimated ? " (estimated)" : ""}</td><td>${h(dollars(r.cost_usd))}</td></tr>`,
  );
  const chart =
    doc.requests.length > 0
      ? `<div class="charts"><figure id="request-chart" aria-label="prompt tokens (cached, uncached) and output tokens of every request"></figure><figure id="agent-chart" aria-label="dollars per agent"></figure></div>`
      : `<p class="quiet">This session was saved before hel kept each request's tokens: only its totals are known.</p>`;
  return `<section id="usage">
<h2>Requests and dollars</h2>
${chart}
<table class="spend"><thead>${head}</thead><tbody>${doc.spend.by_agent.map(spendRow).join("")}</tbody><tfoot>${spendRow({ agent: "parent", label: "total", ...doc.spend.total })}</tfoot></table>
${requests.length > 0 ? `<details class="requests"><summary>Every request (${requests.length})</summary><table><thead><tr><th>#</th><th>agent</th><th>model</th><th>answered</th><th>cached prompt</th><th>uncached prompt</th><th>output</th><th>dollars</th></tr></thead><tbody>${requests.join("")}</tbody></table></details>` : ""}
</section>`;
}

function turnsHtml(doc: SessionDocument): string {
  if (doc.turns.length === 0 && doc.checkpoints.length === 0) return "";
  const rows = doc.turns.map((t) => {
    const points = doc.checkpoints
      .filter((c) => c.turn === t.n)
      .map((c) => `<span class="checkpoint" title="${h(c.at)}">${h(c.kind === "turn" ? "before" : c.kind === "end" ? "after" : "before rewind")} ${h(c.commit.slice(0, 12))}</span>`);
    return `<li><a href="#turn-${t.n}">turn ${t.n}</a> ${h(t.preview)} ${points.join(" ")}</li>`;
  });
  const rewinds = doc.checkpoints.filter((c) => !doc.turns.some((t) => t.n === c.turn)).map((c) => `<li>checkpoint ${h(c.kind)} ${h(c.commit.slice(0, 12))} at turn ${c.turn}</li>`);
  return `<section id="turns">
<h2>Turns and checkpoints</h2>
<ol class="turns">${[...rows, ...rewinds].join("")}</ol>
</section>`;
}

type Children = ReadonlyMap<number, ExportedChild>;

function entriesHtml(entries: readonly Entry[], children: Children, nested: Set<number>): string {
  return entries.map((e) => entryHtml(e, children, nested)).join("\n");
}

function entryHtml(e: Entry, children: Children, nested: Set<number>): string {
  switch (e.type) {
    case "system":
      return `<details class="system"><summary>System prompt</summary><pre>${h(e.text)}</pre></details>`;
    case "instruction": {
      const title = e.turn ? `Turn ${e.turn}` : "Instruction";
      return `<section class="instruction"${e.turn ? ` id="turn-${e.turn}"` : ""}><h3>${title}${e.stamp ? ` <span class="stamp">#${e.stamp}</span>` : ""}</h3><div class="md">${markdownHtml(e.text)}</div></section>`;
    }
    case "note":
      return `<div class="note"><div class="label">note${e.archive ? ` · <a href="#archive-${h(e.archive)}">archived span ${h(e.archive)}</a>` : ""}</div><pre>${h(e.text)}</pre></div>`;
    case "answer":
      if (!e.text && !e.reasoning) return "";
      return `<div class="answer">${e.reasoning ? `<details class="reasoning"><summary>thinking</summary><pre>${h(e.reasoning)}</pre></details>` : ""}${e.text ? `<div class="md">${markdownHtml(e.text)}</div>` : ""}</div>`;
    case "tool_call":
      return callHtml(e, children, nested);
  }
}

function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function callHtml(call: ToolCallEntry, children: Children, nested: Set<number>): string {
  const child = call.child === undefined ? undefined : children.get(call.child);
  const parts = [
    `<div class="call-head"><code class="tool">${h(call.name)}</code>${call.archive ? ` <a href="#archive-${h(call.archive)}">archived span ${h(call.archive)}</a>` : ""}</div>`,
    `<details class="args"><summary>arguments</summary><pre>${h(prettyArguments(call.arguments))}</pre></details>`,
  ];
  if (call.edit) parts.push(diffHtml(call.edit));
  if (call.result !== null) parts.push(outputHtml(call.result));
  if (child) {
    nested.add(child.number);
    parts.push(childHtml(child, children, nested));
  }
  return `<div class="call" id="call-${h(call.id)}">${parts.join("")}</div>`;
}

function outputHtml(text: string): string {
  const lines = text.split("\n").length;
  if (lines <= FOLD_LINES && text.length <= FOLD_CHARS) return `<pre class="output">${h(text)}</pre>`;
  return `<details class="output"><summary>output: ${digits(lines)} lines, ${digits(text.length)} characters</summary><pre>${h(text)}</pre></details>`;
}

function diffHtml(edit: FileEdit): string {
  const lineHtml = (line: string) => `<span class="${line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx"}">${h(line)}</span>`;
  // Each line is a block of its own (so its colour spans the width): no line breaks between them.
  const hunks = edit.hunks.map((hunk) => `<span class="hunk">@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@</span>${hunk.lines.map(lineHtml).join("")}`);
  return `<div class="diff"><div class="diff-head">${h(edit.path)}${edit.created ? " (new file)" : ""} <span class="add">+${edit.added}</span> <span class="del">−${edit.removed}</span></div><pre>${hunks.join("")}</pre></div>`;
}

function childHtml(child: ExportedChild, children: Children, nested: Set<number>): string {
  nested.add(child.number);
  const what = child.agent_name ? `${child.agent_name}, ${child.mode ?? child.kind}` : (child.mode ?? child.kind);
  const summary = `subagent #${child.number} (${what}): ${child.exit_reason}, ${digits(child.spend.requests)} requests, ${dollars(child.spend.cost_usd)}`;
  return `<details class="child" id="child-${child.number}" open><summary>${h(summary)}</summary>${child.unvouched ? `<p class="warning">This transcript was not written by hel here: it is shown as it is.</p>` : ""}${entriesHtml(
    child.entries.filter((e) => e.type !== "system"),
    children,
    nested,
  )}</details>`;
}

function archiveHtml(spans: readonly ArchivedSpan[], children: Children, nested: Set<number>): string {
  if (spans.length === 0) return "";
  const one = (a: ArchivedSpan) => {
    const range = a.first_stamp === null ? "" : ` #${a.first_stamp}–#${a.last_stamp}`;
    const span =
      a.entries === null ? `<p class="warning">${h(a.problem ?? "its file could not be read")}</p>` : `<details class="span"><summary>the archived span</summary>${entriesHtml(a.entries, children, nested)}</details>`;
    return `<section class="fold" id="archive-${h(a.handle)}"><h3>${h(a.auto ? "auto-fold" : a.kind)} ${h(a.handle)}${h(range)}</h3><pre class="fold-note">${h(a.note)}</pre>${a.files.length > 0 ? `<p class="files">files: ${a.files.map((f) => `<code>${h(f)}</code>`).join(", ")}</p>` : ""}${span}</section>`;
  };
  return `<section id="archive">
<h2>Folds and compactions</h2>
${spans.map(one).join("\n")}
</section>`;
}

const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #fdfdfc; --muted: #6a6f75; --line: #d9dcdf; --card: #f3f4f5; --add: #0a7d32; --add-bg: #e6f6ea; --del: #b3261e; --del-bg: #fbe9e7; --accent: #2457c5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e6e8; --bg: #16181a; --muted: #9aa0a6; --line: #33373b; --card: #1f2225; --add: #6fd38c; --add-bg: #16301f; --del: #f28b82; --del-bg: #3a1d1b; --accent: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .75rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; } h3 { font-size: 1rem; margin: 1.25rem 0 .5rem; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: .4rem 0; padding: .6rem .75rem; background: var(--card); border-radius: 6px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
a { color: var(--accent); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0; } .facts dt { color: var(--muted); } .facts dd { margin: 0; }
.warning { padding: .5rem .75rem; border-left: 4px solid var(--del); background: var(--del-bg); }
.quiet, .label, .stamp, summary { color: var(--muted); }
.label { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
table { border-collapse: collapse; margin: .75rem 0; font-variant-numeric: tabular-nums; } th, td { padding: .2rem .6rem; border-bottom: 1px solid var(--line); text-align: right; } th:first-child, td:first-child { text-align: left; } tfoot th, tfoot td { font-weight: 600; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; } #request-chart { margin: 0; min-height: 320px; flex: 1 1 40rem; } #agent-chart { margin: 0; min-height: 320px; flex: 0 1 18rem; }
.turns li { margin: .15rem 0; } .checkpoint { font-size: .8rem; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; }
.instruction { margin-top: 1.5rem; padding: .5rem .9rem; border-left: 4px solid var(--accent); background: var(--card); border-radius: 0 6px 6px 0; } .instruction h3 { margin: .2rem 0; }
.answer { margin: .75rem 0; } .md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.call { margin: .6rem 0; padding: .5rem .75rem; border: 1px solid var(--line); border-radius: 6px; }
.call-head .tool { font-weight: 600; }
.diff pre span { display: block; min-height: 1lh; } .diff .add { color: var(--add); background: var(--add-bg); } .diff .del { color: var(--del); background: var(--del-bg); } .diff .hunk { color: var(--muted); } .diff-head .add, .diff-head .del { background: none; }
.child { margin: .6rem 0 .2rem; padding: .4rem .75rem; border-left: 3px solid var(--accent); background: color-mix(in srgb, var(--card) 60%, transparent); border-radius: 0 6px 6px 0; }
.child > summary { font-weight: 600; color: var(--fg); }
.note { margin: .6rem 0; } .fold { padding: .3rem .9rem; border: 1px dashed var(--line); border-radius: 6px; margin: .75rem 0; }
`;
