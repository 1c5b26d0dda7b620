// The review of facts waiting for the user's word — candidates from fold notes, and project facts hel
// did not write (planted) — one at a time, each answered with one key: keep, drop, or edit then keep.
// The same loop serves the interactive prompt after a turn and `hel memory review`; each hands in how
// it asks. No answer (Ctrl-C, Ctrl-D) leaves the rest waiting for the next review.
import type { Fact } from "../memory/fact.js";
import { MemoryRefused, type MemoryStore } from "../memory/store.js";
import type { Style } from "./term/kit/style.js";
import { reviewLines } from "./term/memory-view.js";

const REVIEW_KEYS = "[y] keep · [n] drop · [e] edit › ";

export interface ReviewAsk {
  say(lines: string[]): void;
  /** One of `keys`, or null when the user gave none. */
  key(question: string, keys: readonly string[]): Promise<string | null>;
  /** One line of text. */
  line(question: string): Promise<string>;
  style: Style;
}

export interface Reviewed {
  kept: number;
  dropped: number;
  left: number;
}

export async function reviewFacts(store: MemoryStore, facts: readonly Fact[], ask: ReviewAsk): Promise<Reviewed> {
  const done: Reviewed = { kept: 0, dropped: 0, left: 0 };
  for (const [at, fact] of facts.entries()) {
    ask.say(reviewLines(fact, ask.style));
    const key = await ask.key(REVIEW_KEYS, ["y", "n", "e"]);
    if (key === null) {
      done.left = facts.length - at;
      break;
    }
    if (key === "n") {
      await store.remove(fact.id);
      done.dropped++;
      continue;
    }
    await (key === "e" ? keepEdited(store, fact, ask) : store.keep(fact.id));
    done.kept++;
  }
  return done;
}

/** Asks for the new text until one may be kept; an empty line keeps the text as it was. */
async function keepEdited(store: MemoryStore, fact: Fact, ask: ReviewAsk): Promise<void> {
  for (;;) {
    const text = (await ask.line("fact (empty: as it is) › ")).trim();
    try {
      await store.keep(fact.id, text === "" ? undefined : text);
      return;
    } catch (error) {
      if (!(error instanceof MemoryRefused)) throw error;
      ask.say([`hel: ${error.message}`]);
    }
  }
}
