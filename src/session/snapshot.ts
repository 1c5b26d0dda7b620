// snapshot.json, schema_version 1: the one schema used both to write and to read a session, so a
// snapshot hel saved is by construction one it can load. Everything needed to continue the
// conversation is here; the API key never is. Key order in the schema is the order on disk: the
// small header fields come first so a person opening the file sees them before the messages.
import { isAbsolute } from "node:path";
import { z } from "zod";
import { DELEGATE_MODES } from "../agent/child-messages.js";
import { MeterSchema } from "../agent/meter.js";
import { ACCESS_LEVELS } from "../tools/types.js";
import type { UsageTotals } from "../agent/usage.js";
import { CursorMapSchema } from "../tools/cursors.js";
import { EFFORTS, MessageSchema, ToolDefinitionSchema, type Message } from "../wire/messages.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { messageJson } from "../wire/serialize.js";

export const SCHEMA_VERSION = 1 as const;

const count = z.number().int().nonnegative();

export const RequestConfigSchema = z.object({
  model: z.string().min(1),
  max_output_tokens: z.number().int().positive(),
  max_steps: z.number().int().positive(),
  effort: z.enum(EFFORTS).nullable(),
  access: z.enum(ACCESS_LEVELS),
  delegate: z.enum(DELEGATE_MODES).nullable(),
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

/** Everything but the messages, which are checked one by one (see saveSnapshot). */
export const SnapshotHeaderSchema = SnapshotSchema.omit({ messages: true });
export type SnapshotHeader = z.infer<typeof SnapshotHeaderSchema>;

/**
 * The bytes of snapshot.json: exactly Buffer.from(JSON.stringify(snapshot)), with `messages` last.
 * Each message's JSON comes from the per-message cache the request serializer fills (a message never
 * changes once it is in the conversation), so a save writes the conversation's bytes without
 * serializing it again. The bytes go into `into` (grown when too small), so a caller can reuse one
 * buffer across saves; the result is a view of that buffer or of its grown replacement.
 */
export function encodeSnapshot(header: SnapshotHeader, messages: readonly Message[], into: Buffer = Buffer.allocUnsafe(64 * 1024)): Buffer {
  const out = new ByteWriter(into);
  const put = (text: string) => out.put(text);
  const headJson = JSON.stringify(header);
  put(`${headJson.slice(0, -1)}${headJson.length > 2 ? "," : ""}"messages":[`);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) put(",");
    put(messageJson(messages[i]!));
  }
  put("]}");
  return out.bytes();
}
