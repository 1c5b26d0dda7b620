// recall: an archived span read back as text, exactly what was sent (stamps, roles, tool names and
// arguments, contents), paged; or, with a query, only the lines that match, with a little context.
// It never summarizes: a note that kept the story but lost a detail is answered by the bytes.
import type { Message } from "../../wire/messages.js";

export const RECALL_TOOL_NAME = "recall";
const RECALL_PAGE_LINES = 400;
const RECALL_PAGE_CHARS = 24 * 1024;
const CONTEXT_LINES = 2;

/** The span as lines of text: a header line per message, then its content. */
export function renderSpan(messages: readonly Message[]): string[] {
  const lines: string[] = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "assistant") {
      lines.push("── assistant");
      if (m.content) lines.push(...m.content.split("\n"));
      for (const c of m.tool_calls ?? []) {
        names.set(c.id, c.function.name);
        lines.push(`→ ${c.function.name} ${c.function.arguments}`);
      }
    } else {
      lines.push(m.role === "tool" ? `── tool result (${names.get(m.tool_call_id) ?? "unknown"})` : `── ${m.role}`);
      lines.push(...m.content.split("\n"));
    }
  }
  return lines;
}

export interface RecallPage {
  text: string;
  /** The line to continue from, when more remains. */
  next: number | null;
}

/** Lines from `from` on, at most a page of them; numbered so a query's hits can be read around. */
export function recallPage(lines: readonly string[], from: number): RecallPage {
  const out: string[] = [];
  let chars = 0;
  let i = from;
  for (; i < lines.length && out.length < RECALL_PAGE_LINES; i++) {
    const line = `${i + 1}\t${lines[i]}`;
    if (out.length > 0 && chars + line.length > RECALL_PAGE_CHARS) break;
    out.push(line);
    chars += line.length + 1;
  }
  return { text: out.join("\n"), next: i < lines.length ? i : null };
}

/** The numbered lines containing `query` (case-insensitive), each with a little context; runs merged. */
export function recallMatches(lines: readonly string[], query: string): { text: string; hits: number } {
  const needle = query.toLowerCase();
  const keep = new Set<number>();
  let hits = 0;
  lines.forEach((line, i) => {
    if (!line.toLowerCase().includes(needle)) return;
    hits++;
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(lines.length - 1, i + CONTEXT_LINES); j++) keep.add(j);
  });
  const out: string[] = [];
  let last = -2;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (i !== last + 1 && out.length > 0) out.push("…");
    out.push(`${i + 1}\t${lines[i]}`);
    last = i;
  }
  return { text: out.join("\n"), hits };
}

const NAMED = [/^\[(?:compacted|folded) ([a-z0-9]{4,12})\]/, /\bhandle: ([a-z0-9]{4,12})\b/];

/** The handles a span names: earlier compactions and folds whose notes it holds, in order. */
export function namedHandles(messages: readonly Message[]): string[] {
  const found = new Set<string>();
  for (const m of messages) {
    if (m.role !== "user" && m.role !== "tool") continue;
    const text = m.content.replace(/^\[#\d+\] /, "");
    const pattern = m.role === "user" ? NAMED[0]! : NAMED[1]!;
    const handle = pattern.exec(m.role === "tool" ? text.split("\n")[0]! : text)?.[1];
    if (handle) found.add(handle);
  }
  return [...found];
}
