// The exported session (`hel sessions export --format json`), version 1: everything one session recorded,
// gathered into one document that every view renders (the page, Markdown, ATIF, `hel web`). One zod
// schema, pinned in test/contracts/session-export.txt: fields are added, never removed or renamed.
// Texts in it are masked (no secret the exporter knows) and hold only what the session itself saved.
import { z } from "../zod.js";
import { FileEditSchema } from "../changes/file-edit.js";
import { CHILD_KINDS, DELEGATE_MODES, EXIT_REASONS } from "../agent/events.js";
import { RequestUsageSchema, SpendSchema } from "../agent/usage.js";

export const EXPORT_FORMAT = "hel.session-export" as const;
export const EXPORT_VERSION = 1 as const;

const isoTime = z.iso.datetime({ offset: true });
const stamp = z.number().int().positive();

/** One tool call with what came back; `child`: the subagent it started, `archive`: the span a fold call folded. */
const ToolCallEntrySchema = z.object({
  type: z.literal("tool_call"),
  id: z.string(),
  name: z.string(),
  /** The arguments as the model wrote them (JSON text, which may be malformed). */
  arguments: z.string(),
  /** The tool's result as the model read it; null when none came back. */
  result: z.string().nullable(),
  edit: FileEditSchema.optional(),
  child: z.number().int().positive().optional(),
  archive: z.string().optional(),
});

/** One piece of a conversation, in order: an assistant message becomes its answer, then its calls. */
const EntrySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("system"), text: z.string() }),
  /** The user's words (or a child's task); `turn` when it opened one of the session's turns. */
  z.object({ type: z.literal("instruction"), stamp: stamp.nullable(), turn: z.number().int().positive().optional(), text: z.string() }),
  /** hel's own note standing in the view for what left it: a fold it made, a compaction's summary. */
  z.object({ type: z.literal("note"), text: z.string(), archive: z.string().optional() }),
  /** One assistant message: the model's words (empty when it only called tools); `reasoning` its thinking, when it was kept. */
  z.object({ type: z.literal("answer"), text: z.string(), reasoning: z.string().optional() }),
  ToolCallEntrySchema,
]);
export type Entry = z.infer<typeof EntrySchema>;
export type ToolCallEntry = z.infer<typeof ToolCallEntrySchema>;

const ChildSchema = z.object({
  number: z.number().int().positive(),
  kind: z.enum(CHILD_KINDS),
  mode: z.enum(DELEGATE_MODES).nullable(),
  agent_name: z.string().optional(),
  task: z.string(),
  /** The parent's call that started it; null when it cannot be told. */
  call_id: z.string().nullable(),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  spend: SpendSchema,
  /** Its transcript was not written by hel here (planted, copied, or from an older hel). */
  unvouched: z.literal(true).optional(),
  entries: z.array(EntrySchema),
});
export type ExportedChild = z.infer<typeof ChildSchema>;

const ArchivedSpanSchema = z.object({
  handle: z.string(),
  kind: z.enum(["fold", "compaction"]),
  auto: z.literal(true).optional(),
  first_stamp: stamp.nullable(),
  last_stamp: stamp.nullable(),
  note: z.string(),
  files: z.array(z.string()),
  /** The span as it was sent; null with `problem` when its file is missing or was changed outside hel. */
  entries: z.array(EntrySchema).nullable(),
  problem: z.string().optional(),
});
export type ArchivedSpan = z.infer<typeof ArchivedSpanSchema>;

const AgentSpendSchema = SpendSchema.extend({
  agent: z.enum(["parent", "child"]),
  delegation: z.number().int().positive().optional(),
  /** For people: "parent", or the child's number and what it was. */
  label: z.string(),
});
export type AgentSpend = z.infer<typeof AgentSpendSchema>;

export const SessionDocumentSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exported_at: isoTime,
  session: z.object({
    id: z.string(),
    created_at: isoTime,
    updated_at: isoTime,
    model: z.string(),
    effort: z.string().nullable(),
    /** Whether this user's hel wrote it here (a planted or copied session is exported as it is). */
    written_by_hel: z.boolean(),
    forked_from: z.object({ session_id: z.string(), turn: z.number().int().nonnegative() }).optional(),
    last_turn: z.object({ exit_reason: z.enum(EXIT_REASONS), error: z.string().optional() }).optional(),
  }),
  turns: z.array(z.object({ n: z.number().int().positive(), stamp, preview: z.string() })),
  checkpoints: z.array(z.object({ turn: z.number().int().nonnegative(), kind: z.enum(["turn", "end", "rewind"]), commit: z.string(), at: isoTime, left_out: z.array(z.string()) })),
  /** The parent's conversation as its next request would send it (spans that left it are in `archive`). */
  entries: z.array(EntrySchema),
  children: z.array(ChildSchema),
  archive: z.array(ArchivedSpanSchema),
  /** Every answered request, oldest first; empty for sessions saved before hel kept them. */
  requests: z.array(RequestUsageSchema),
  spend: z.object({ total: SpendSchema, by_agent: z.array(AgentSpendSchema) }),
});
export type SessionDocument = z.infer<typeof SessionDocumentSchema>;
