// `children/<n>.json`: one subagent's transcript, saved atomically beside its parent's snapshot and
// read back by `hel sessions show`. One schema for writing and reading.
import { z } from "zod";
import { MessageSchema } from "../wire/messages.js";
import { UsageTotalsSchema } from "./snapshot.js";

export const ChildTranscriptSchema = z.object({
  number: z.number().int().positive(),
  mode: z.enum(["full", "no-tools", "task-only"]),
  task: z.string(),
  messages: z.array(MessageSchema),
  answer: z.string().nullable(),
  exit_reason: z.enum(["completed", "max_steps", "length", "error", "aborted"]),
  usage: UsageTotalsSchema,
});
export type ChildTranscript = z.infer<typeof ChildTranscriptSchema>;
