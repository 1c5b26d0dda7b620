// Stamps: the visible id `[#N] ` that opens every user message and tool result, given when the
// message joins a conversation. N counts up through the session (its children included) and is never
// given twice or renumbered, so the model can name where an episode began (fold's `since`) and a
// resumed session sends the bytes it sent before. hel's own compaction messages carry none.
import type { Message } from "../wire/messages.js";

/** The session's counter: the last stamp given, 0 before the first. Persisted with the session. */
export class StampCounter {
  constructor(private lastGiven = 0) {}

  get last(): number {
    return this.lastGiven;
  }

  /** `text` opened by the next stamp. */
  stamp(text: string): string {
    return `[#${++this.lastGiven}] ${text}`;
  }
}

const STAMP = /^\[#(\d+)\] /;

/** The stamp a user message or tool result opens with, or null (a system or assistant message, an unstamped one). */
export function stampOf(message: Message): number | null {
  if (message.role !== "user" && message.role !== "tool") return null;
  const match = STAMP.exec(message.content);
  return match ? Number(match[1]) : null;
}

/** A stamp as the model may name it: `#12`, `[#12]` or `12`; null for anything else. */
export function parseStampRef(text: string): number | null {
  const match = /^\s*\[?#?(\d{1,9})\]?\s*$/.exec(text);
  return match ? Number(match[1]) : null;
}

/** Text without the stamp it opens with, if any. */
export function unstamped(text: string): string {
  return text.replace(STAMP, "");
}
