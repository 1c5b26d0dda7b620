// One child's transcript: what a delegate_task, review_changes or ask child leaves the session when it
// ends, saved atomically as `children/<n>.json` beside its parent's snapshot and read back by `hel
// sessions show`. One schema for writing and reading; transcripts written before children had a kind
// or a cost read as delegations of unknown cost, and before named agents as plain delegations.
import { z } from "../../zod.js";
import { MessageSchema, type WithMessages } from "../../wire/messages.js";
import { DELEGATE_MODES } from "../events.js";
import { CHILD_KINDS, EXIT_REASONS } from "../events.js";
import { UsageTotalsSchema } from "../usage.js";

export const ChildTranscriptSchema = z.object({
  number: z.number().int().positive(),
  kind: z.enum(CHILD_KINDS).default("delegate"),
  /** Null for a review or a question, which are not delegations. */
  mode: z.enum(DELEGATE_MODES).nullable(),
  /** The named agent that did the delegation; absent for a plain one (and in transcripts from before named agents). */
  agent_name: z.string().optional(),
  task: z.string(),
  messages: z.array(MessageSchema),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  usage: UsageTotalsSchema,
  /** US dollars, estimated from the price table when the child ran; null when its model had no price. */
  cost_usd: z.number().nonnegative().nullable().default(null),
});
export type ChildTranscript = WithMessages<z.infer<typeof ChildTranscriptSchema>>;
