// snapshot.json, schema_version 1: the one schema used both to write and to read a session, so a
// snapshot hel saved is by construction one it can load. Everything needed to continue the
// conversation is here; the API key never is. Key order in the schema is the order on disk: the
// small header fields come first so a person opening the file sees them before the messages.
import { isAbsolute } from "node:path";
import { z } from "zod";
import type { UsageTotals } from "../agent/usage.js";
import { CursorMapSchema } from "../tools/cursors.js";
import { EFFORTS, MessageSchema, ToolDefinitionSchema } from "../wire/messages.js";

export const SCHEMA_VERSION = 1 as const;

const count = z.number().int().nonnegative();

export const RequestConfigSchema = z.object({
  model: z.string().min(1),
  max_output_tokens: z.number().int().positive(),
  max_steps: z.number().int().positive(),
  effort: z.enum(EFFORTS).nullable(),
  access: z.enum(["read-only", "edit"]),
  delegate: z.enum(["full", "no-tools", "task-only"]).nullable(),
  compaction: z.object({
    enabled: z.boolean(),
    threshold_tokens: z.number().int().positive().nullable(),
  }),
});
export type RequestConfig = z.infer<typeof RequestConfigSchema>;

// UsageTotals is the agent's type; the schema is checked against it so the two cannot drift apart.
export const UsageTotalsSchema = z.object({
  requests: count,
  prompt_tokens: count,
  completion_tokens: count,
  prompt_cache_hit_tokens: count,
  prompt_cache_miss_tokens: count,
}) satisfies z.ZodType<UsageTotals>;

export const MeterSchema = z.object({
  /** How many messages the last request sent; messages after it are estimated, not measured. */
  message_count: count,
  /** The real prompt_tokens DeepSeek reported for that request. */
  input_tokens: count,
});
export type Meter = z.infer<typeof MeterSchema>;

const isoTime = z.iso.datetime({ offset: true });

export const SnapshotSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  session_id: z.string().min(1),
  cwd: z.string().refine(isAbsolute, "must be an absolute path"),
  created_at: isoTime,
  updated_at: isoTime,
  request_config: RequestConfigSchema,
  meter: MeterSchema,
  usage: UsageTotalsSchema,
  children: count.default(0),
  // Room for compaction state; version 1 writes null.
  compaction: z.null().or(z.record(z.string(), z.unknown())),
  cursors: CursorMapSchema,
  tools: z.array(ToolDefinitionSchema),
  messages: z.array(MessageSchema),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;
/** What a caller may hand to saveSnapshot: defaults (children) may be left out. */
export type SnapshotInput = z.input<typeof SnapshotSchema>;

/**
 * The bytes of snapshot.json: exactly Buffer.from(JSON.stringify(snapshot)) for a snapshot whose last
 * key is `messages` (the schema's output always is), but built message by message. One
 * JSON.stringify of a 10 MB snapshot returns a rope that costs more to flatten and encode than it
 * cost to build; small strings written straight into one exactly sized buffer halve the save time.
 */
export function encodeSnapshot(snapshot: Snapshot): Buffer {
  const { messages, ...head } = snapshot;
  const headJson = JSON.stringify(head);
  const parts: string[] = [`${headJson.slice(0, -1)}${headJson.length > 2 ? "," : ""}"messages":[`];
  for (let i = 0; i < messages.length; i++) parts.push(i === 0 ? JSON.stringify(messages[i]) : `,${JSON.stringify(messages[i])}`);
  parts.push("]}");
  let size = 0;
  for (const part of parts) size += Buffer.byteLength(part, "utf8");
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const part of parts) offset += out.write(part, offset, "utf8");
  return out;
}
