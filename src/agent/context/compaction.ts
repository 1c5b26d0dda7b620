// Compaction: when the view grows past --compact-at, the model is asked in-band (the conversation as
// it stands plus one instruction, so the request extends the last one and is served from the cache)
// for a structured summary; the new view is the system message, one `[compacted <handle>]` message
// holding it, and the recent tail. Pure: the instruction, where to cut, and the new view.
import { z } from "../../zod.js";
import type { Message } from "../../wire/messages.js";
import { replaceSpan } from "../../wire/conversation-edits.js";
import { messageJson } from "../../wire/serialize.js";
import type { ArchiveEntry, ArchiveFile } from "../archive.js";
import { COMPACTED_PREFIX, newHandle, touchedFiles } from "./fold.js";
import { estimateTokens } from "../meter.js";
import { stampOf } from "../stamps.js";

export const COMPACTION_MARK = "Context compaction:";
/** Compactions in a row that fail or do not shrink the view before hel stops trying. */
export const MAX_COMPACTION_FAILURES = 3;
const TAIL_TOKENS = 20_000;

export const CompactionStateSchema = z.object({
  /** Compactions in a row that failed or did not shrink the view; at the limit hel stops compacting. */
  failures: z.number().int().nonnegative(),
  stopped: z.boolean(),
});
export type CompactionState = z.infer<typeof CompactionStateSchema>;

/** Windows of DeepSeek's models, in tokens; an unknown model is taken to have the smallest. */
const WINDOWS: Record<string, number> = { "deepseek-flash": 1_048_576, "deepseek-v4-pro": 1_048_576, "deepseek-v4-flash": 1_048_576 };

/** --compact-at's default: 80% of the model's context window, which --context-window states when given. */
export function defaultCompactAt(model: string, window?: number | null): number {
  return Math.floor((window ?? WINDOWS[model] ?? 131_072) * 0.8);
}

/** The in-band instruction: it asks for the summary and nothing else. */
export function compactionInstruction(focus?: string): string {
  return [
    `${COMPACTION_MARK} the conversation above is about to be replaced by your summary of it, followed by its most recent messages. Write that summary now. Do not call any tool and do not continue the work; answer only with the summary, in these sections:`,
    "## Goal — what the user wants overall.",
    "## User instructions — every instruction the user gave; quote short ones verbatim, keep every rule, limit and preference exactly.",
    "## Constraints and preferences — including caveats and preconditions learned along the way.",
    "## Done / In progress / Blocked",
    "## Decisions — and the options rejected, with why.",
    "## Open questions",
    "## Files — read and changed, with exact paths.",
    "## Next steps — numbered.",
    "Keep exact names, paths, commands, error texts and values; be terse.",
    ...(focus ? [`Additional focus: ${focus}`] : []),
  ].join("\n");
}

/**
 * Where the kept tail starts: about `keepTokens` from the end, only at a user or assistant message
 * (a call stays with its results), never before index 2 (something must be compacted). A user message
 * up to twice that far back is preferred, so the instruction being worked on stays as it was said.
 * Null when nothing can be compacted.
 */
export function tailStart(view: readonly Message[], keepTokens: number): number | null {
  let tokens = 0;
  let cut: number | null = null;
  let i = view.length - 1;
  for (; i >= 2; i--) {
    tokens += estimateTokens(messageJson(view[i]!));
    const role = view[i]!.role;
    if (role === "user" || role === "assistant") cut = i;
    if (tokens >= keepTokens && cut !== null) break;
  }
  if (cut === null || view[cut]!.role === "user") return cut;
  for (let j = i - 1; j >= 2 && tokens <= 2 * keepTokens; j--) {
    tokens += estimateTokens(messageJson(view[j]!));
    if (view[j]!.role === "user" && tokens <= 2 * keepTokens) return j;
  }
  return cut;
}

/** The tail a compaction keeps: at most a quarter of --compact-at, and of the window once a refusal told it. */
export const tailTokens = (compactAt: number, window?: number): number => Math.min(TAIL_TOKENS, Math.floor(compactAt / 4), window ? Math.floor(window / 4) : Infinity);

export const INSTRUCTIONS_BLOCK = "The user's instructions from the earlier part of the conversation, left out of this request to fit, verbatim:";

/**
 * What a summary request that leaves out `leftOut` keeps of it: the user's instructions, verbatim, as
 * one block; null when it held none.
 */
export function instructionsBlock(leftOut: readonly Message[]): Message | null {
  const said = leftOut.filter((m) => m.role === "user" && stampOf(m) !== null).map((m) => m.content as string);
  if (said.length === 0) return null;
  return { role: "user", content: `${INSTRUCTIONS_BLOCK}\n\n${said.join("\n\n")}` };
}

export type CompactionPlan = { ok: true; view: Message[]; file: ArchiveFile; message: Message } | { ok: false; reason: string };

/** The new view from the old one and the model's summary, or why the summary will not do. */
export function planCompaction(view: readonly Message[], summary: string, keepTokens: number, archived: readonly ArchiveEntry[]): CompactionPlan {
  const cut = tailStart(view, keepTokens);
  if (cut === null) return { ok: false, reason: "the conversation is too short to compact" };
  const span = view.slice(1, cut);
  const text = summary.trim();
  if (text === "") return { ok: false, reason: "the summary was empty" };
  const spanTokens = span.reduce((n, m) => n + estimateTokens(messageJson(m)), 0);
  if (estimateTokens(text) >= spanTokens) return { ok: false, reason: "the summary was no shorter than what it would replace" };
  const stamps = span.map(stampOf).filter((n): n is number => n !== null);
  const handle = newHandle(span, new Set(archived.map((e) => e.handle)));
  const first = stamps[0] ?? null;
  const last = stamps.at(-1) ?? null;
  const range = first === null ? "" : ` (#${first}–#${last})`;
  const message: Message = {
    role: "user",
    content: `${COMPACTED_PREFIX}${handle}] The earlier conversation${range} was compacted into the summary below; recall ${JSON.stringify({ handle })} reads it back exactly, and ask answers questions about it. The messages after this one are the most recent, as they were.\n\n${text}`,
  };
  const file: ArchiveFile = { handle, kind: "compaction", first_stamp: first, last_stamp: last, note: text, files: touchedFiles(span), stamps, messages: span };
  return { ok: true, view: replaceSpan(view, 1, cut, [message]), file, message };
}
