// What `--json` and `--record` say about a change of the view: a fold, a compaction, or a compaction
// that failed. One schema for writing and reading.
import { z } from "../../zod.js";
import type { AgentEvent } from "../events.js";

export const ContextEventSchema = z.object({
  agent: z.enum(["parent", "child"]),
  kind: z.enum(["fold", "compaction", "compaction_failed"]),
  handle: z.string().nullable(),
  first_stamp: z.number().int().nullable(),
  last_stamp: z.number().int().nullable(),
  tokens_before: z.number().int().nullable(),
  tokens_after: z.number().int().nullable(),
  reason: z.string().nullable(),
  /** A fold hel made itself (auto-fold); absent otherwise. */
  auto: z.literal(true).optional(),
});
export type ContextEvent = z.infer<typeof ContextEventSchema>;

/** The event as the records carry it, or null for an event that does not change the view. */
export function contextEventOf(event: AgentEvent): ContextEvent | null {
  if (event.type === "fold" || event.type === "compaction") {
    const { file } = event;
    return {
      agent: event.agent,
      kind: event.type,
      handle: file.handle,
      first_stamp: file.first_stamp,
      last_stamp: file.last_stamp,
      tokens_before: event.tokensBefore,
      tokens_after: event.tokensAfter,
      reason: null,
      ...(file.auto ? { auto: true as const } : {}),
    };
  }
  if (event.type === "compaction_failed") {
    return { agent: event.agent, kind: event.type, handle: null, first_stamp: null, last_stamp: null, tokens_before: null, tokens_after: null, reason: event.reason };
  }
  return null;
}
