// Fold: a finished episode of work leaves the view and is archived, and a note the model wrote stands
// in for it. Pure: from the view and the fold call to the span to archive and the result to give, or to
// an error result that says what to call instead; then from the view to the new one (foldedView).
import { createHash } from "node:crypto";
import { z } from "../../zod.js";
import { groupDigits } from "../../format.js";
import type { Message, ToolCall } from "../../wire/messages.js";
import { replaceSpan } from "../../wire/conversation-edits.js";
import { toolCallsOf } from "../../wire/stored-message.js";
import { findToolPairingError } from "../../wire/tool-pairing.js";
import type { ArchiveEntry, ArchiveFile } from "../archive.js";
import { parseStampRef, stampOf, unstamped } from "../stamps.js";
import { traitsOf } from "../toolbox.js";

export const FOLD_TOOL_NAME = "fold";

// The fields have no descriptions: every request carries the definition, and the tool's says what a
// note keeps; a stamp is what every message of the view opens with.
export const FoldArgsSchema = z.object({
  since: z.string(),
  note: z.object({ changed: z.string(), learned: z.string(), decided: z.string(), open: z.string() }),
});
export type FoldArgs = z.infer<typeof FoldArgsSchema>;

export const FOLD_DESCRIPTION = "Swap a done episode, from stamp since to here, for your note; call it alone. Keep caveats, what was rejected and why, exact names, paths, errors.";

/** The longest a note field may be: the note stays in the view, and is sent again with every later request. */
const MAX_NOTE_FIELD_CHARS = 4000;

/** A fold result's text after its stamp opens with this; a note in the view is found by it. */
export const FOLD_RESULT_PREFIX = "Folded";
/** The user message that holds a compaction summary opens with this. */
export const COMPACTED_PREFIX = "[compacted ";
/** The user message that holds the note of a fold hel made itself (auto-fold) opens with this. */
export const FOLDED_PREFIX = "[folded ";

export interface FoldPlanned {
  ok: true;
  /** The span: from `start` to `end`, the fold call's message, which stays with its result. */
  start: number;
  end: number;
  file: ArchiveFile;
  /** The fold call's result: the note, its handle and the files the span touched. */
  result: string;
}
export type FoldPlan = FoldPlanned | { ok: false; error: string };

/**
 * The fold the call asks for. `view` ends with the assistant message holding the call; `archived`
 * is the session's index, for unique handles and for naming the span a stamp was folded into.
 */
export function planFold(view: readonly Message[], call: ToolCall, args: FoldArgs, archived: readonly ArchiveEntry[]): FoldPlan {
  const fail = (error: string): FoldPlan => ({ ok: false, error });
  const end = view.length - 1;
  const holder = view[end];
  const calls = holder ? toolCallsOf(holder) : undefined;
  if (!calls?.some((c) => c.id === call.id)) return fail("fold can only fold the conversation it is called in.");
  if (calls.length > 1) return fail("fold must be the only tool call in its message. Wait for the other calls' results, then call fold alone.");
  if (Object.values(args.note).every((text) => text.trim() === "")) {
    return fail("the note is empty. Call fold again with a note that says what changed, what was learned (with its caveats), what was decided and what is open.");
  }
  const long = (Object.entries(args.note) as [string, string][]).filter(([, text]) => text.trim().length > MAX_NOTE_FIELD_CHARS);
  if (long.length > 0) {
    const sizes = long.map(([key, text]) => `${key} has ${groupDigits(text.trim().length)}`).join(", ");
    return fail(
      `the note is too long: ${sizes} characters, and each field may hold at most ${groupDigits(MAX_NOTE_FIELD_CHARS)}. The note stands in for the episode in every later request: call fold again with each field cut to what must stay in view (caveats, exact names, paths, commands); recall reads the archived span back in full.`,
    );
  }
  const stamp = parseStampRef(args.since);
  if (stamp === null) return fail(`since must name a stamp such as "#12" (the [#N] that opens a user message or tool result), not ${JSON.stringify(args.since)}.`);
  let at = view.findIndex((m) => stampOf(m) === stamp);
  if (at < 0) {
    const folded = archived.find((e) => e.first_stamp !== null && e.last_stamp !== null && e.first_stamp <= stamp && stamp <= e.last_stamp);
    if (folded) return fail(`#${stamp} is inside the span already archived as ${folded.handle}. Fold since a stamp after its note.`);
    return fail(`no message in the conversation has the stamp #${stamp}. Call fold again with since set to a stamp you can see, like ${lastStampHint(view)}.`);
  }
  // From a tool result, the episode starts at the assistant message whose call it answers.
  if (view[at]!.role === "tool") while (at > 0 && view[at]!.role === "tool") at--;
  const barrier = lastNoteIndex(view, end);
  if (at <= barrier) {
    return fail(`#${stamp} is at or before an earlier fold note or compaction summary; a fold cannot cross one. Fold since a stamp after it${firstStampAfter(view, barrier, end)}.`);
  }
  if (at >= end) return fail(`#${stamp} leaves nothing to fold. Fold since an earlier stamp.`);
  const span = view.slice(at, end);
  // The span leaves whole: every call in it with its results, and no result without its call.
  if (findToolPairingError(span)) {
    return fail(`folding since #${stamp} would separate a tool call from its result. Fold since the stamp of a user message or of the first result of a call.`);
  }
  const stamps = span.map(stampOf).filter((n): n is number => n !== null);
  const note = noteText(args.note);
  const files = touchedFiles(span);
  const handle = newHandle(span, new Set(archived.map((e) => e.handle)));
  const first = stamps[0] ?? null;
  const last = stamps.at(-1) ?? null;
  const file: ArchiveFile = { handle, kind: "fold", first_stamp: first, last_stamp: last, note, files, stamps, messages: span };
  const range = first === null ? "" : first === last ? ` #${first}` : ` #${first}–#${last}`;
  const result = [`${FOLD_RESULT_PREFIX}${range} into handle: ${handle} (recall reads it back exactly; ask answers questions about it).`, note, `files: ${files.length > 0 ? files.join(", ") : "none"}`].join("\n");
  return { ok: true, start: at, end, file, result };
}

export function noteText(note: FoldArgs["note"]): string {
  return (["changed", "learned", "decided", "open"] as const).map((key) => `${key}: ${note[key].trim() || "-"}`).join("\n");
}

/** Where the last fold note or compaction summary before `end` is; -1 when there is none. */
export function lastNoteIndex(view: readonly Message[], end = view.length): number {
  for (let i = end - 1; i > 0; i--) {
    const m = view[i]!;
    if (m.role === "user" && (m.content.startsWith(COMPACTED_PREFIX) || m.content.startsWith(FOLDED_PREFIX))) return i;
    if (m.role === "tool" && unstamped(m.content).startsWith(FOLD_RESULT_PREFIX) && answersFold(view, i)) return i;
  }
  return -1;
}

function answersFold(view: readonly Message[], at: number): boolean {
  const id = (view[at] as { tool_call_id: string }).tool_call_id;
  for (let i = at - 1; i >= 0; i--) {
    const calls = toolCallsOf(view[i]!);
    if (calls) return calls.some((c) => c.id === id && c.function.name === FOLD_TOOL_NAME);
  }
  return false;
}

function lastStampHint(view: readonly Message[]): string {
  for (let i = view.length - 1; i >= 0; i--) {
    const n = stampOf(view[i]!);
    if (n !== null) return `#${n}`;
  }
  return "#1";
}

function firstStampAfter(view: readonly Message[], from: number, end: number): string {
  for (let i = from + 1; i < end; i++) {
    const n = stampOf(view[i]!);
    if (n !== null) return `, such as #${n}`;
  }
  return "";
}

/** Project files the span's tool calls touched, in the order first touched. */
export function touchedFiles(span: readonly Message[]): string[] {
  const files = new Set<string>();
  for (const m of span) {
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) {
      // What a later read or edit of the file is matched against (the catalogue names the argument).
      const key = traitsOf(c.function.name)?.pathArgument;
      if (!key) continue;
      try {
        const value = (JSON.parse(c.function.arguments) as Record<string, unknown>)[key];
        if (typeof value === "string" && value.trim() !== "") files.add(value.trim().replace(/^\.\//, ""));
      } catch {
        // A call whose arguments were not JSON touched nothing: it failed.
      }
    }
  }
  return [...files];
}

/** A handle from the span's bytes: four hex digits, more when those are taken. */
export function newHandle(span: readonly Message[], taken: ReadonlySet<string>): string {
  const digest = createHash("sha256").update(JSON.stringify(span)).digest("hex");
  for (let length = 4; length <= 12; length++) {
    const handle = digest.slice(0, length);
    if (!taken.has(handle)) return handle;
  }
  for (let n = 0; ; n++) if (!taken.has(`${digest.slice(0, 8)}${n}`)) return `${digest.slice(0, 8)}${n}`;
}

/** The view once the fold call has its result: the span gone, everything else as it was. */
export function foldedView(view: readonly Message[], plan: Pick<FoldPlanned, "start" | "end">): Message[] {
  return replaceSpan(view, plan.start, plan.end, []);
}

/** What `/fold #N` sends the model: the instruction to fold the episode that began at that stamp. */
export function foldInstruction(stamp: number): string {
  return `Fold the finished episode that began at #${stamp} now: call fold with since "#${stamp}" and a note that keeps its caveats and constraints, not only its conclusions. Then stop.`;
}
