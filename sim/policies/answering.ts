// What every policy answers whatever it plays: hel's compaction instruction (a last user message opening
// "Context compaction:") with a structured summary of the user's instructions, quoted verbatim, and no
// tool calls; hel's auto-fold request ("Fold:") with a note as JSON. hel's own `[folded …]` note is not
// an instruction.
import { AUTO_FOLD_MARK } from "../../src/agent/context/auto-fold.js";
import { COMPACTION_MARK, INSTRUCTIONS_BLOCK } from "../../src/agent/context/compaction.js";
import { unstamped } from "../../src/agent/stamps.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import type { Policy, SimReply } from "../types.js";
import { isAutoFoldNote, lastUserIndex, lastUserText } from "./conversation.js";

/**
 * hel's compaction request, answered as a model would: a summary that keeps the user's words, those
 * an earlier summary quoted included.
 */
function compactionSummary(req: ChatRequest): SimReply {
  const asked = req.messages
    .slice(0, lastUserIndex(req.messages))
    .filter((m): m is Extract<Message, { role: "user" }> => m.role === "user" && !isAutoFoldNote(m))
    .flatMap((m) => {
      if (m.content.startsWith("[compacted ")) return m.content.split("\n").filter((l) => l.startsWith('- "'));
      // The instructions a summary request left out to fit, kept as one block: one per paragraph.
      if (m.content.startsWith(INSTRUCTIONS_BLOCK))
        return m.content
          .split("\n\n")
          .slice(1)
          .map((i) => `- "${unstamped(i)}"`);
      return [`- "${unstamped(m.content)}"`];
    });
  return {
    reasoning: "Summarize the conversation for the continuation.",
    content: ["## Goal", "Carry on with the user's instructions.", "## User instructions (verbatim)", ...(asked.length > 0 ? asked : ["- (none)"]), "## Next steps", "1. Continue."].join("\n"),
  };
}

// ------------------------------------------------------------------------------------------ auto-fold

const RULE_LINE = /[^\n]*\b(?:must|only with|only when)\b[^\n]*/gi;

/**
 * hel's auto-fold request, answered as a model would: the note as JSON, with the files the span edited
 * and the lines of its results that state a rule (what a note must not lose).
 */
function autoFoldNote(req: ChatRequest): SimReply {
  const asked = req.messages.findLastIndex((m) => m.role === "user" && m.content.startsWith(AUTO_FOLD_MARK) && !/not the note/.test(m.content));
  const command = /`([^`]+)`/.exec(String(req.messages[asked]?.content ?? ""))?.[1] ?? "the command";
  const span = req.messages.slice(0, asked);
  const edited = new Set<string>();
  const rules = new Set<string>();
  for (const m of span.slice(lastUserIndex(span) + 1)) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) if (c.function.name === "search_replace") edited.add(String((JSON.parse(c.function.arguments) as { path?: unknown }).path ?? ""));
    if (m.role === "tool") for (const line of unstamped(String(m.content)).match(RULE_LINE) ?? []) if (rules.size < 3) rules.add(line.trim());
  }
  const note = {
    changed: edited.size > 0 ? [...edited].join(", ") : "nothing",
    learned: [`${command} passes now.`, ...rules].join(" "),
    decided: "kept the fix that made it pass",
    open: "nothing",
  };
  return { reasoning: "Write the note about the finished episode.", content: JSON.stringify(note) };
}

/** Every policy answers hel's compaction and auto-fold requests instead of making its own move. */
export function answeringCompaction(policy: Policy): Policy {
  return (req, ctx) => {
    const text = lastUserText(req);
    if (text.startsWith(COMPACTION_MARK)) return compactionSummary(req);
    return text.startsWith(AUTO_FOLD_MARK) ? autoFoldNote(req) : policy(req, ctx);
  };
}
