// What `hel sessions show` and `hel sessions ls` print. Pure functions of their input (the clock and
// the style are parameters), so the output is tested byte for byte. A transcript is for reading what
// happened: instructions and final answers in full, each tool call on one line with the diff of the
// edit it made, tool results cut to a glimpse, and under a command the last lines of its output.
import { noteHeadline } from "../../agent/archive.js";
import { childLabel } from "../../agent/children/kinds.js";
import type { ChildTranscript } from "../../agent/children/child-transcript.js";
import { COMPACTED_PREFIX, FOLD_RESULT_PREFIX, FOLD_TOOL_NAME } from "../../agent/context/fold.js";
import { unstamped } from "../../agent/stamps.js";
import type { SessionSummary } from "../../session/catalog.js";
import type { RewindReport } from "../../session/fork.js";
import type { Snapshot } from "../../session/snapshot-format.js";
import { editsOf } from "../../session/edits-by-call.js";
import type { FileEdit } from "../../changes/file-edit.js";
import { formatUsd } from "../../model/prices.js";
import { count, groupDigits, plural } from "../../format.js";
import type { Message, ToolCall } from "../../wire/messages.js";
import { formatEdit } from "./kit/diff-view.js";
import { PLAIN, type Style } from "./kit/style.js";
import { toolCallLabel } from "./tool-views.js";
import { runCommandTool } from "../../tools/command/run-command.js";

/** What a transcript shows under an agent's calls: their edits by call id, and the colours to use. */
interface EditView {
  edits: ReadonlyMap<string, FileEdit>;
  style: Style;
}

export function formatTranscript(snapshot: Snapshot, style: Style = PLAIN): string {
  const { usage, request_config: config } = snapshot;
  const turns = snapshot.messages.filter((m) => m.role === "user").length;
  const header = [
    `session  ${snapshot.session_id}`,
    `cwd      ${snapshot.cwd}`,
    `model    ${config.model}${config.effort ? ` (effort ${config.effort})` : ""}, access ${config.access}${config.delegate ? `, delegate ${config.delegate}` : ""}`,
    `created  ${snapshot.created_at}`,
    `updated  ${snapshot.updated_at}`,
    `turns    ${turns}`,
    `tokens   ${groupDigits(usage.prompt_tokens + usage.completion_tokens)} (prompt ${groupDigits(usage.prompt_tokens)}, cache hit ${groupDigits(usage.prompt_cache_hit_tokens)}, completion ${groupDigits(usage.completion_tokens)}) in ${usage.requests} requests`,
  ];
  if (snapshot.children > 0) header.push(`children ${snapshot.children} subagent transcripts`);
  if (snapshot.forked_from) header.push(`fork of  ${snapshot.forked_from.session_id} at turn ${snapshot.forked_from.turn}`);
  for (const entry of snapshot.checkpoints ?? []) {
    const what = entry.kind === "turn" ? `before turn ${entry.turn}` : entry.kind === "end" ? `after turn ${entry.turn}` : `before a rewind (after turn ${entry.turn})`;
    const leftOut = entry.left_out.length > 0 ? `, left out: ${entry.left_out.join(", ")}` : "";
    header.push(`files    ${entry.commit.slice(0, 10)} ${what}, ${entry.at}${leftOut}`);
  }
  for (const entry of snapshot.archive) {
    const stamps = entry.first_stamp === null ? "" : ` #${entry.first_stamp}–#${entry.last_stamp}`;
    header.push(`archive  ${entry.handle} ${entry.kind}${entry.auto ? " (auto)" : ""}${stamps}: ${noteHeadline(entry.note)}`);
  }

  const blocks: string[] = [header.join("\n")];
  let turn = 0;
  const view = { edits: editsOf(snapshot.edits), style };
  blocks.push(...formatMessages(snapshot.messages, (content) => (content.startsWith(COMPACTED_PREFIX) ? `── compacted ──\n${content}` : `── instruction ${++turn} ──\n${content}`), view));
  return blocks.join("\n\n") + "\n";
}

/**
 * A subagent's transcript. Its messages begin with whatever the parent's conversation handed it (in
 * `full` mode, all of it); only what follows its task, the last user message, is the child's own work.
 */
export function formatChildTranscript(child: ChildTranscript, edits: ReadonlyMap<string, FileEdit> = new Map(), style: Style = PLAIN): string {
  const header = `── subagent ${child.number} (${labelOf(child)}) ── ${child.exit_reason}, ${childFigures(child).join(", ")}`;
  let start = 0;
  child.messages.forEach((m, i) => {
    if (m.role === "user") start = i + 1;
  });
  const blocks = [`${header}\ntask: ${child.task}`, ...formatMessages(child.messages.slice(start), () => "", { edits, style })];
  // A child stopped early (max steps, error) has no final answer among its messages; say so.
  if (child.answer === null) blocks.push(`── no answer (${child.exit_reason}) ──`);
  return blocks.filter((b) => b !== "").join("\n\n") + "\n";
}

/** The session's children, one line each: what it was, how it ended, what it used and cost. */
export function formatDelegations(children: readonly ChildTranscript[]): string {
  if (children.length === 0) return "";
  const rows = children.map((c) => {
    const [requests, tokens, cost = ""] = childFigures(c);
    return [`#${c.number}`, labelOf(c), c.exit_reason, requests!, tokens!, cost];
  });
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  // Words to the left, figures to the right.
  const cells = (row: string[]) => row.map((cell, i) => (i >= 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)));
  const lines = rows.map((row, k) => `  ${cells(row).join("  ")}  ${cut(oneLineText(children[k]!.task), 60)}`);
  return `subagents (costs are estimates)\n${lines.join("\n")}\n`;
}

const labelOf = (child: ChildTranscript): string => childLabel({ ...child, ...(child.agent_name ? { agentName: child.agent_name } : {}) });

function childFigures(child: ChildTranscript): string[] {
  const { usage } = child;
  return [plural(usage.requests, "request"), `${groupDigits(usage.prompt_tokens + usage.completion_tokens)} tokens`, ...(child.cost_usd === null ? [] : [formatUsd(child.cost_usd)])];
}

function formatMessages(messages: readonly Message[], user: (content: string) => string, view: EditView): string[] {
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
  const blocks: string[] = [];
  for (const m of messages) {
    if (m.role === "user") blocks.push(user(m.content));
    else if (m.role === "assistant") blocks.push(formatAssistant(m, results, view));
    // System messages are rebuilt on resume and tool results are shown under their calls.
  }
  return blocks;
}

function formatAssistant(m: Extract<Message, { role: "assistant" }>, results: ReadonlyMap<string, string>, view: EditView): string {
  const content = m.content?.trim() ?? "";
  if (!m.tool_calls) return `── answer ──\n${content}`;
  const lines = content ? [content] : [];
  for (const call of m.tool_calls) {
    const result = results.get(call.id);
    // A folded span is shown as what stands for it: the note.
    if (call.function.name === FOLD_TOOL_NAME && result !== undefined && unstamped(result).startsWith(FOLD_RESULT_PREFIX)) {
      lines.push(`── ${unstamped(result).split("\n", 1)[0]} ──`, ...unstamped(result).split("\n").slice(1));
      continue;
    }
    const edit = view.edits.get(call.id);
    if (edit) lines.push(`→ ${toolCallLabel(call.function.name, call.function.arguments)}`, ...formatEdit(edit, { style: view.style, indent: "  " }));
    else lines.push(`→ ${call.function.name} ${formatArguments(call)}`);
    lines.push(result === undefined ? "  ← (no result)" : `  ← ${glimpse(result)}`);
    if (result !== undefined && call.function.name === runCommandTool.name) lines.push(...commandTail(unstamped(result)));
  }
  return lines.join("\n");
}

/** A command's output lines shown under its call: the last of them, which say why it failed if it did. */
const COMMAND_TAIL_LINES = 10;

/** The last lines of a command's result after its first (how it ended, which the glimpse shows). */
function commandTail(result: string): string[] {
  const output = result
    .split("\n")
    .slice(1)
    .filter((line) => line.trim() !== "");
  const kept = output.slice(-COMMAND_TAIL_LINES).map((line) => `    │ ${cut(line.trimEnd(), 160)}`);
  const before = output.length - kept.length;
  return before > 0 ? [`    │ … ${count(before, "line")} before these`, ...kept] : kept;
}

function formatArguments(call: ToolCall): string {
  let text = call.function.arguments;
  try {
    text = JSON.stringify(JSON.parse(text));
  } catch {
    // Shown as the model sent it.
  }
  return cut(text.replace(/\s+/g, " "), 160);
}

/** The first non-empty line of a tool result, and how big the whole result was. */
function glimpse(result: string): string {
  const lines = result.split("\n");
  if (lines.at(-1) === "") lines.pop(); // a final newline ends the last line, it does not start one
  const first = lines.find((l) => l.trim() !== "")?.trim() ?? "";
  const size = `${lines.length} ${lines.length === 1 ? "line" : "lines"}, ${formatBytes(Buffer.byteLength(result, "utf8"))}`;
  return first ? `${cut(first, 100)} (${size})` : `(empty, ${size})`;
}

export interface ListFormatOptions {
  /** For "3 min ago"; the list is otherwise a pure function of its input. */
  now?: Date;
  /** Total line width to fit the first instruction into. */
  width?: number;
}

export function formatSessionList(summaries: readonly SessionSummary[], options: ListFormatOptions = {}): string {
  if (summaries.length === 0) return "no sessions in this project — run hel with an instruction to start one\n";
  const now = options.now ?? new Date();
  const width = Math.max(options.width ?? 100, 60);
  const idWidth = uniquePrefixLength(summaries.map((s) => s.id));
  const rows = summaries.map((s) => ({
    id: s.id.slice(0, idWidth),
    updated: s.updated_at ? relativeTime(new Date(s.updated_at), now) : "-",
    turns: s.turns === null ? "-" : String(s.turns),
    tokens: s.tokens === null ? "-" : formatTokens(s.tokens),
    text: (s.in_use ? "[in use] " : "") + (s.written_by_hel || s.error ? "" : "[not written by hel here] ") + (s.error ? `(${s.error})` : oneLineText(s.first_instruction ?? "")),
  }));
  const head = { id: "ID", updated: "UPDATED", turns: "TURNS", tokens: "TOKENS", text: "FIRST INSTRUCTION" };
  const w = {
    id: Math.max(head.id.length, idWidth),
    updated: Math.max(head.updated.length, ...rows.map((r) => r.updated.length)),
    turns: Math.max(head.turns.length, ...rows.map((r) => r.turns.length)),
    tokens: Math.max(head.tokens.length, ...rows.map((r) => r.tokens.length)),
  };
  const textWidth = Math.max(width - (w.id + w.updated + w.turns + w.tokens + 8), 20);
  const line = (r: typeof head): string => [r.id.padEnd(w.id), r.updated.padEnd(w.updated), r.turns.padStart(w.turns), r.tokens.padStart(w.tokens), cut(r.text, textWidth)].join("  ").trimEnd();
  return [line(head), ...rows.map(line)].join("\n") + "\n";
}

/** At least 8 characters, more only when two listed ids would otherwise look the same. */
function uniquePrefixLength(ids: readonly string[]): number {
  let n = 8;
  while (new Set(ids.map((id) => id.slice(0, n))).size < ids.length && ids.some((id) => id.length > n)) n++;
  return n;
}

function relativeTime(then: Date, now: Date): string {
  const s = Math.round((now.getTime() - then.getTime()) / 1000);
  if (Number.isNaN(s)) return "-";
  if (s < 0) return then.toISOString().slice(0, 16).replace("T", " ");
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
  return then.toISOString().slice(0, 10);
}

function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

const oneLineText = (text: string): string => text.replace(/\s+/g, " ").trim();

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}

/** What `hel rewind` and /rewind say they did. */
export function formatRewind(id: string, to: number | "rewind", report: RewindReport): string {
  const lines = [to === "rewind" ? `session ${id}: undid the latest rewind of its files` : `session ${id}, back to before turn ${to}:`];
  if (report.files) {
    const restored = report.files.filter((f) => f.action === "restore").map((f) => f.path);
    const removed = report.files.filter((f) => f.action === "remove").map((f) => f.path);
    if (restored.length === 0 && removed.length === 0) lines.push("  files: none had changed since then");
    if (restored.length > 0) lines.push(`  files put back: ${restored.join(", ")}`);
    if (removed.length > 0) lines.push(`  files removed (made since): ${removed.join(", ")}`);
    const kept = report.files.filter((f) => f.action === "keep").map((f) => f.path);
    if (kept.length > 0) lines.push(`  files left as they are (not checkpointed: over 10 MB, or holding the API key): ${kept.join(", ")}`);
    lines.push(`  undo with: hel rewind ${id.slice(0, 8)} --to rewind --files`);
  }
  if (report.fork) lines.push(`  conversation: ${report.turnsKept} turn${report.turnsKept === 1 ? "" : "s"} kept; the whole conversation before the rewind is session ${report.fork} (hel --resume ${report.fork})`);
  return lines.join("\n");
}
