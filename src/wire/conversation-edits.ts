// Changes to a conversation other than appending (compaction and fold replace spans of it). Messages
// cannot change (messages.ts), so a change is a new list: pure functions from the old list to the
// new one, which leave the old list and every message in it as they were. A change that would break
// the pairing of tool calls and results is refused, since DeepSeek would refuse every request after it.
import type { Message } from "./messages.js";
import { findToolPairingError } from "./tool-pairing.js";

/**
 * The conversation with `messages[start, end)` replaced by `replacement` (an empty span inserts,
 * an empty replacement removes). Throws a RangeError for a span outside the list, and an Error
 * saying what is wrong when the new list breaks the pairing of tool calls and results.
 */
export function replaceSpan(messages: readonly Message[], start: number, end: number, replacement: readonly Message[]): Message[] {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > end || end > messages.length) {
    throw new RangeError(`no span [${start}, ${end}) in a conversation of ${messages.length} messages`);
  }
  const next = [...messages.slice(0, start), ...replacement, ...messages.slice(end)];
  const pairing = findToolPairingError(next);
  if (pairing) throw new Error(`replacing messages[${start}, ${end}) would break the conversation: in the new one, ${pairing}`);
  return next;
}
