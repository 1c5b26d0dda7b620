// A session's turns: its instructions numbered from 1, each found in the view by the stamp of its user
// message (stamps are never renumbered, so folds and compactions do not move a turn's identity). Pure:
// what a rewind or a fork keeps of the conversation is decided here.
import { stampOf, unstamped } from "../agent/stamps.js";
import type { Message } from "../wire/messages.js";
import type { Turn } from "./snapshot-format.js";

const PREVIEW_CHARS = 60;

/** The turn an instruction opens, numbered after `turns`. */
export function newTurn(turns: readonly Turn[], message: Message): Turn | null {
  const stamp = stampOf(message);
  if (stamp === null || message.role !== "user") return null;
  const text = unstamped(message.content).replace(/\s+/g, " ").trim();
  return { n: (turns.at(-1)?.n ?? 0) + 1, stamp, preview: text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text };
}

export type Cut = { ok: true; messages: Message[] } | { ok: false; error: string };

/**
 * The view as it was before turn `n`'s instruction: the messages before its user message. A turn past
 * the last keeps everything; a turn whose message left the view (folded or compacted) cannot be cut at.
 */
export function viewBeforeTurn(messages: readonly Message[], turns: readonly Turn[], n: number): Cut {
  if (!Number.isInteger(n) || n < 1) return { ok: false, error: `turn ${n} is not a turn number (turns count from 1)` };
  const turn = turns.find((t) => t.n === n);
  if (!turn) {
    if (n === (turns.at(-1)?.n ?? 0) + 1) return { ok: true, messages: [...messages] };
    return { ok: false, error: `the session has ${turns.length} turn${turns.length === 1 ? "" : "s"}; there is no turn ${n}` };
  }
  const index = messages.findIndex((m) => m.role === "user" && stampOf(m) === turn.stamp);
  if (index < 0) return { ok: false, error: `turn ${n}'s instruction was folded or compacted away; choose a later turn` };
  return { ok: true, messages: messages.slice(0, index) };
}
