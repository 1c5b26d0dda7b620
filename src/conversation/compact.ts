// Compaction the user asks for (/compact, and the size ask may fill): tried whatever --compact-at and
// earlier failures say, up to the model's default threshold when --compact-at sets none.
import { compactNow, MIN_SPAN_TOKENS } from "../agent/context/compact-run.js";
import { defaultCompactAt } from "../agent/context/compaction.js";
import type { AgentSetup } from "../agent/loop/loop.js";
import type { ActiveSession } from "../session/session.js";

/** What /compact and ask may fill when the user asks, whatever --compact-at says. */
export function askedCompactAt(compactAt: number, model: string): number {
  return compactAt || defaultCompactAt(model);
}

/** Compacts now, keeping `focus` in mind; the conversation's size in tokens when it is too small to gain, else null. `settle`: the readers have read it all. */
export function compactOnAsk(run: AgentSetup, session: ActiveSession, compactAt: number, settle: () => Promise<void>): (focus: string) => Promise<number | null> {
  return async (focus) => {
    const asked = { ...run, archive: session.archive, compaction: { compactAt, state: session.compaction } };
    const done = await compactNow(session.messages, asked, new AbortController().signal, null, 0, { focus: focus || undefined, minSpanTokens: MIN_SPAN_TOKENS });
    await settle();
    return done.tooSmall ?? null;
  };
}
