// `children/<n>.json`: one subagent's transcript, saved atomically beside its parent's snapshot and
// read back by `hel sessions show`. One schema for writing and reading.
import { z } from "../zod.js";
import { DELEGATE_MODES } from "../agent/child-messages.js";
import { EXIT_REASONS } from "../agent/events.js";
import { MessageSchema, type WithMessages } from "../wire/messages.js";
import { UsageTotalsSchema } from "./snapshot.js";

export const ChildTranscriptSchema = z.object({
  number: z.number().int().positive(),
  mode: z.enum(DELEGATE_MODES),
  task: z.string(),
  messages: z.array(MessageSchema),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  usage: UsageTotalsSchema,
});
export type ChildTranscript = WithMessages<z.infer<typeof ChildTranscriptSchema>>;
