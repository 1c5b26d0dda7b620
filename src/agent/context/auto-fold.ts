// Auto-fold: a command episode that closed (episodes.ts) leaves the view without waiting for the model.
// The note is asked for in-band (the conversation as it stands plus one `Fold:` message, so the request
// extends the last one and is served from the cache) as JSON; the span is archived as a fold marked
// automatic and replaced by one unstamped `[folded <handle>]` message. Pure: the instruction, reading
// the answer, and the new view.
import type { Message } from "../../wire/messages.js";
import { replaceSpan } from "../../wire/conversation-edits.js";
import type { ArchiveEntry, ArchiveFile } from "../archive.js";
import { stampOf } from "../stamps.js";
import type { CommandEpisode } from "./episodes.js";
import { FOLDED_PREFIX, FoldArgsSchema, newHandle, noteText, touchedFiles, type FoldArgs } from "./fold.js";

export const AUTO_FOLD_MARK = "Fold:";
/** A closed episode smaller than this stays in the view: its note would save too little. */
export const AUTO_FOLD_MIN_TOKENS = 4000;

function range(view: readonly Message[], start: number): { first: number | null; last: number | null; text: string } {
  const stamps = view
    .slice(start)
    .map(stampOf)
    .filter((n): n is number => n !== null);
  const first = stamps[0] ?? null;
  const last = stamps.at(-1) ?? null;
  return { first, last, text: first === null ? "" : first === last ? ` (#${first})` : ` (#${first}–#${last})` };
}

function commandText(episode: CommandEpisode): string {
  return `\`${episode.command}\`${episode.workdir ? ` in ${episode.workdir}` : ""}`;
}

/** The in-band request's last message: the note about the episode, as JSON, and nothing else. */
export function autoFoldInstruction(view: readonly Message[], episode: CommandEpisode): string {
  return [
    `${AUTO_FOLD_MARK} the episode above${range(view, episode.start).text} is finished: ${commandText(episode)} failed, then passed. hel will replace it by your note.`,
    'Do not call any tool. Answer only with a JSON object {"changed": "...", "learned": "...", "decided": "...", "open": "..."}: what it changed; what it established, with its caveats and preconditions; what was decided and rejected, with why; what is still open ("nothing" if nothing).',
    "Keep exact names, paths, commands and error texts.",
  ].join("\n");
}

/** Sent once after an answer that was not the note. */
export function autoFoldRetry(reason: string): string {
  return `${AUTO_FOLD_MARK} that was not the note (${reason}). Answer only with the JSON object, its four fields strings.`;
}

const NoteSchema = FoldArgsSchema.shape.note;

/** The note in the model's answer, or why there is none. */
export function parseAutoFoldNote(answer: string): { ok: true; note: FoldArgs["note"] } | { ok: false; reason: string } {
  const text = answer
    .trim()
    .replace(/^```(?:json)?\s*/, "")
    .replace(/\s*```$/, "");
  const open = text.indexOf("{");
  const close = text.lastIndexOf("}");
  if (open < 0 || close < open) return { ok: false, reason: "no JSON object" };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(open, close + 1));
  } catch {
    return { ok: false, reason: "the JSON did not parse" };
  }
  const parsed = NoteSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: "it needs the string fields changed, learned, decided and open" };
  if (Object.values(parsed.data).every((v) => v.trim() === "")) return { ok: false, reason: "every field was empty" };
  return { ok: true, note: parsed.data };
}

export interface AutoFoldPlan {
  view: Message[];
  file: ArchiveFile;
}

/** The view with the episode replaced by its `[folded <handle>]` note, and the span to archive. */
export function planAutoFold(view: readonly Message[], episode: CommandEpisode, note: FoldArgs["note"], archived: readonly ArchiveEntry[]): AutoFoldPlan {
  const span = view.slice(episode.start);
  const { first, last, text } = range(view, episode.start);
  const handle = newHandle(span, new Set(archived.map((e) => e.handle)));
  const files = touchedFiles(span);
  const body = noteText(note);
  const times = episode.failures === 1 ? "once" : `${episode.failures} times`;
  const message: Message = {
    role: "user",
    content: [
      `${FOLDED_PREFIX}${handle}] hel folded a finished episode${text}: ${commandText(episode)} failed ${times}, then passed. recall ${JSON.stringify({ handle })} reads it back exactly; ask answers questions about it. Carry on with the task.`,
      body,
      `files: ${files.length > 0 ? files.join(", ") : "none"}`,
    ].join("\n"),
  };
  const stamps = span.map(stampOf).filter((n): n is number => n !== null);
  const file: ArchiveFile = { handle, kind: "fold", auto: true, first_stamp: first, last_stamp: last, note: body, files, stamps, messages: span };
  return { view: replaceSpan(view, episode.start, view.length, [message]), file };
}
