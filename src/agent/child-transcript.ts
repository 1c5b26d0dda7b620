// One subagent's transcript: what delegate_task hands the session when a child ends, saved atomically
// as `children/<n>.json` beside its parent's snapshot and read back by `hel sessions show`. One schema
// for writing and reading.
import { z } from "../zod.js";
import { MessageSchema } from "../wire/messages.js";
import { DELEGATE_MODES } from "./child-messages.js";
import { EXIT_REASONS } from "./events.js";
import { UsageTotalsSchema } from "./usage.js";

export const ChildTranscriptSchema = z.object({
  number: z.number().int().positive(),
  /** How the child was built: a delegation's mode, or `ask` (a question about an archived span). */
  mode: z.enum([...DELEGATE_MODES, "ask"]),
  task: z.string(),
  messages: z.array(MessageSchema),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  usage: UsageTotalsSchema,
});
export type ChildTranscript = z.infer<typeof ChildTranscriptSchema>;
