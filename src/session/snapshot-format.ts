// snapshot.json, schema_version 2: the one schema used both to write and to read a session, so a
// snapshot hel saved is by construction one it can load (a version-1 snapshot is read too, and
// upgraded: its messages keep their bytes, and it is written back as version 2). Everything needed to continue the
// conversation is here; the API key never is. Key order in the schema is the order on disk: the
// small header fields come first so a person opening the file sees them before the messages.
import { isAbsolute } from "node:path";
import { z } from "../zod.js";
import { ArchiveEntrySchema } from "../agent/archive.js";
import { CompactionStateSchema } from "../agent/context/compaction.js";
import { DELEGATE_MODES } from "../agent/events.js";
import { EXIT_REASONS } from "../agent/events.js";
import { MeterSchema } from "../agent/meter.js";
import { TodoListSchema } from "../agent/todo-list.js";
import { ACCESS_LEVELS } from "../tools/types.js";
import { UsageTotalsSchema } from "../agent/usage.js";
import { CursorMapSchema } from "../tools/cursors.js";
import { FileEditSchema } from "../changes/file-edit.js";
import type { RequestSettings } from "../agent/request.js";
import { EFFORTS, MessageSchema, ToolDefinitionSchema, type Effort, type Message, type WithMessages } from "../wire/messages.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { messageJson, messagePieces } from "../wire/serialize.js";
import { toolCallsOf } from "../wire/stored-message.js";
import { crc32 } from "node:zlib";

export const SCHEMA_VERSION = 2 as const;
/** The older version still read: it had no stamps, no archive and no compaction state. */
export const SCHEMA_VERSION_1 = 1 as const;

const count = z.number().int().nonnegative();

const RequestConfigSchema = z.object({
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
/** A running session's settings: a stored one may lack an effort (older snapshots), a running one never does. */
export type RunRequestConfig = RequestConfig & { effort: Effort };

/**
 * What the agent's requests are built from, read from the one record each time: a change to the
 * record (a new model, a new effort) is the next request's, and what the next save keeps.
 */
export function requestSettings(config: RunRequestConfig): RequestSettings {
  return {
    get model() {
      return config.model;
    },
    get maxTokens() {
      return config.max_output_tokens;
    },
    get effort() {
      return config.effort;
    },
  };
}

const isoTime = z.iso.datetime({ offset: true });

/** A file edit a tool call made, kept so `hel sessions show` can show its diff; `delegation` for a subagent's call. */
const StoredEditSchema = z.object({
  call_id: z.string(),
  delegation: z.number().int().positive().optional(),
  edit: FileEditSchema,
});
export type StoredEdit = z.infer<typeof StoredEditSchema>;

/** How the latest turn ended: a turn cut short is saved too, and a resume says so. */
const LastTurnSchema = z.object({
  exit_reason: z.enum(EXIT_REASONS),
  error: z.string().optional(),
});
export type LastTurn = z.infer<typeof LastTurnSchema>;

/** An instruction of the session, numbered from 1 in order: what rewind and fork name as "turn N". */
const TurnSchema = z.object({
  n: z.number().int().positive(),
  /** The stamp of its user message, which never changes, so the turn is found in the view by it. */
  stamp: z.number().int().positive(),
  /** The instruction's first words, for pickers. */
  preview: z.string(),
});
export type Turn = z.infer<typeof TurnSchema>;

/**
 * The project's files recorded in hel's checkpoint store: before the first call of turn `turn` that may
 * change files, at the end of such a turn (`end`), or before a rewind (`rewind`, so it can be undone).
 */
const CheckpointEntrySchema = z.object({
  turn: z.number().int().nonnegative(),
  kind: z.enum(["turn", "end", "rewind"]),
  commit: z.string().regex(/^[0-9a-f]{40,64}$/),
  at: isoTime,
  /** Files over the size limit, left out of it. */
  left_out: z.array(z.string()),
});
export type CheckpointEntry = z.infer<typeof CheckpointEntrySchema>;

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
  /** The last stamp given (0: none yet); the next message's is one more. */
  stamps: count,
  compaction: CompactionStateSchema,
  /** Spans that left the view, oldest first; each one's messages are in archive/<handle>.json. */
  archive: z.array(ArchiveEntrySchema),
  cursors: CursorMapSchema,
  tools: z.array(ToolDefinitionSchema),
  // Absent until the session edits a file; older snapshots have none.
  edits: z.array(StoredEditSchema).optional(),
  // Absent in snapshots written before turns cut short were saved.
  last_turn: LastTurnSchema.optional(),
  // Absent in snapshots written before checkpoints and forks.
  turns: z.array(TurnSchema).optional(),
  checkpoints: z.array(CheckpointEntrySchema).optional(),
  forked_from: z.object({ session_id: z.string(), turn: z.number().int().nonnegative() }).optional(),
  /**
   * The SHA-256 of each subagent transcript (children/<number>.json) as hel wrote it: the signed
   * snapshot vouches for them, as for the archive. Absent in snapshots written before it was kept.
   */
  child_transcripts: z.array(z.object({ number: z.number().int().positive(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })).optional(),
  /** The parent's todo list as its last todo call left it; absent while it has none. */
  todo: TodoListSchema.optional(),
  messages: z.array(MessageSchema),
});
export type Snapshot = WithMessages<z.infer<typeof SnapshotSchema>>;
/** What a caller may hand to saveSnapshot: defaults (children) may be left out. */
export type SnapshotInput = WithMessages<z.input<typeof SnapshotSchema>>;

/** Everything but the messages, which are checked one by one (see saveSnapshot). */
export const SnapshotHeaderSchema = SnapshotSchema.omit({ messages: true });
export type SnapshotHeader = z.infer<typeof SnapshotHeaderSchema>;

/** A version-1 header, read as the version-2 header it becomes: nothing stamped, nothing archived. */
export const SnapshotHeaderV1Schema = SnapshotHeaderSchema.omit({ stamps: true, archive: true, compaction: true })
  .extend({
    schema_version: z.literal(SCHEMA_VERSION_1),
    compaction: z.null().or(z.record(z.string(), z.unknown())),
  })
  .transform(
    ({ compaction: _, ...header }): SnapshotHeader => ({
      ...header,
      schema_version: SCHEMA_VERSION,
      stamps: 0,
      compaction: { failures: 0, stopped: false },
      archive: [],
    }),
  );

/**
 * The bytes of snapshot.json, in pieces to be written one after another: JSON.stringify(snapshot)
 * with `messages` last and each message on a line of its own, so the file reads as one message per
 * line and loads a message at a time (splitSnapshot). Each message's JSON comes from the per-message
 * cache the request serializer fills (a message never changes once it is in the conversation), so a
 * save does not serialize the conversation again. Messages a resume read from a snapshot, still in
 * the order and layout they were read in, are not even copied: their pieces are views of the bytes
 * the load read, so the first save after a resume writes the history straight from them. Everything
 * else goes into `into`, which a caller may keep across saves (its `memory`, grown when too small).
 */
export function encodeSnapshot(header: SnapshotHeader, messages: readonly Message[], into: ByteWriter = new ByteWriter()): Buffer[] {
  const body = messagePieces(into, "", messages, ",\n", "");
  const index: MessagesIndex = { crc32: messagesChecksum(messages, body), entries: messages.map(indexEntry) };
  const headJson = JSON.stringify({ ...header, [INDEX_KEY]: index, [MAC_KEY]: UNSIGNED });
  const head = `${headJson.slice(0, -1)},${MESSAGES_OPEN}\n`;
  return [Buffer.from(head), ...body, Buffer.from(messages.length > 0 ? `\n${MESSAGES_CLOSE}\n` : `${MESSAGES_CLOSE}\n`)];
}

/**
 * What a load needs of each message without parsing it (its role and the ids that pair calls with
 * results), and a checksum of the message lines, in the header: a file hel wrote and nobody changed
 * since is loaded from these (its messages were checked when they were saved), and any other file
 * is parsed and checked message by message. Not part of the Snapshot: encodeSnapshot computes it.
 */
const INDEX_KEY = "messages_index";
const IndexEntrySchema = z.union([z.enum(["s", "u", "a"]), z.tuple([z.literal("t"), z.string()]), z.tuple([z.literal("a"), z.array(z.tuple([z.string(), z.string()])).min(1)])]);
const MessagesIndexSchema = z.object({ crc32: z.number().int().nonnegative(), entries: z.array(IndexEntrySchema) });
type MessagesIndex = z.infer<typeof MessagesIndexSchema>;
type IndexEntry = z.infer<typeof IndexEntrySchema>;

// The checksum of the message lines up to and including a message, by that message and its place:
// a conversation grows at its end, so a save checksums only what was added since the last save or
// load. A conversation changed before that place (a fold) finds no entry there, or one whose
// checksum no longer matches the file, and then the load checks every message: never wrong, only slower.
// The first message is part of the key: a resume puts this process's system message first.
const checksumThrough = new WeakMap<Message, { at: number; first: Message; crc: number }>();

function messagesChecksum(messages: readonly Message[], body: readonly Buffer[]): number {
  const known = (i: number): boolean => {
    const entry = checksumThrough.get(messages[i]!);
    return entry?.at === i && entry.first === messages[0];
  };
  let from = messages.length;
  while (from > 0 && !known(from - 1)) from--;
  let crc: number;
  if (from === 0) {
    crc = body.reduce((sum, piece) => crc32(piece, sum), 0);
  } else {
    crc = checksumThrough.get(messages[from - 1]!)!.crc;
    for (let i = from; i < messages.length; i++) crc = crc32(messageJson(messages[i]!), crc32(",\n", crc));
  }
  rememberChecksum(messages, crc);
  return crc;
}

/** The checksum of all of `messages`' lines: the next save of them, or of more after them, starts from it. */
export function rememberChecksum(messages: readonly Message[], crc: number): void {
  if (messages.length > 0) checksumThrough.set(messages.at(-1)!, { at: messages.length - 1, first: messages[0]!, crc });
}

function indexEntry(message: Message): IndexEntry {
  if (message.role === "tool") return ["t", message.tool_call_id];
  const calls = message.role === "assistant" ? toolCallsOf(message) : undefined;
  if (calls) return ["a", calls.map((c) => [c.id, c.function.name] as [string, string])];
  return message.role === "system" ? "s" : message.role === "user" ? "u" : "a";
}

/**
 * The messages' index when it matches these bytes: an index whose checksum is that of the message
 * lines as they lie in `bytes` (first message to last), with an entry per message; else null.
 */
export function verifiedIndex(layout: SnapshotLayout, bytes: Buffer): MessagesIndex | null {
  const parsed = MessagesIndexSchema.safeParse(layout.header[INDEX_KEY]);
  const count = layout.messages.length / 2;
  if (!parsed.success || parsed.data.entries.length !== count) return null;
  const region = count === 0 ? bytes.subarray(0, 0) : bytes.subarray(layout.messages[0], layout.messages[2 * count - 1]);
  return crc32(region) === parsed.data.crc32 ? parsed.data : null;
}

/** What storedMessage needs to know of a message, from its index entry. */
export function indexedShape(entry: IndexEntry): Message {
  if (entry === "s") return { role: "system", content: "" };
  if (entry === "u") return { role: "user", content: "" };
  if (entry === "a") return { role: "assistant", content: null };
  if (entry[0] === "t") return { role: "tool", tool_call_id: entry[1], content: "" };
  return { role: "assistant", content: null, tool_calls: entry[1].map(([id, name]) => ({ id, type: "function", function: { name, arguments: "" } })) };
}

const MESSAGES_OPEN = '"messages":[';
/**
 * The MAC that shows this user's hel wrote the file for this session of this project (signature.ts),
 * last in the first line, before the messages. Like the index, not part of the Snapshot: a save
 * writes it, a load checks it. Snapshots written before it was kept have none, and are not hel's own
 * until the user adopts them (`--resume <id> --trust`).
 */
const MAC_KEY = "mac";
/** The MAC's place before it is signed: as many digits as an HMAC-SHA-256 in hex. */
export const UNSIGNED = "0".repeat(64);
/** How a first line as encodeSnapshot writes it ends: the MAC, then the messages' opening. */
export const MAC_TAIL = `"${MAC_KEY}":"`;
export const AFTER_MAC = `",${MESSAGES_OPEN}`;
const MESSAGES_CLOSE = "]}";
const NL = 0x0a;
const COMMA = 0x2c;
const CR = 0x0d;

/**
 * The header object (with `messages: []`) of a snapshot's first line as encodeSnapshot writes it
 * (`{...,"messages":[`; a byte order mark before it or a CR after it, as an editor may leave, are
 * not part of it), or null for any other line. Nothing is validated here.
 */
export function headerOfFirstLine(line: string): Record<string, unknown> | null {
  const text = line.replace(/^\ufeff/, "").replace(/\r$/, "");
  if (!text.endsWith(MESSAGES_OPEN)) return null;
  try {
    const header: unknown = JSON.parse(`${text}${MESSAGES_CLOSE}`);
    return typeof header === "object" && header !== null && !Array.isArray(header) ? (header as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Where a snapshot's parts are in its bytes: the header object and each message's JSON. */
export interface SnapshotLayout {
  /** The header (with `messages: []`), parsed but not validated. */
  header: Record<string, unknown>;
  /** Start and end offsets of each message's JSON, two numbers per message, in order. */
  messages: number[];
}

/**
 * The layout encodeSnapshot writes, found line by line: the header on the first line, then a message
 * per line, each but the last followed by a comma, then `]}`. Null when the bytes are laid out any
 * other way (a file edited by hand, say), for the caller to parse whole. Only the header is parsed
 * here; each message's line is the caller's to parse, so the file is never one string in memory.
 * JSON.stringify never writes a raw line break, so every line break in the file is one the encoder put
 * between messages.
 */
export function splitSnapshot(bytes: Uint8Array): SnapshotLayout | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lineEnd = (from: number): number => {
    const nl = buf.indexOf(NL, from);
    return nl === -1 ? buf.length : nl;
  };
  // A line's text without its line break (LF or CRLF).
  const textEnd = (end: number, from: number): number => (end > from && buf[end - 1] === CR ? end - 1 : end);
  let end = lineEnd(0);
  const header = headerOfFirstLine(buf.toString("utf8", 0, end));
  if (!header) return null;
  const messages: number[] = [];
  let pos = end + 1;
  for (;;) {
    if (pos >= buf.length) return null;
    end = lineEnd(pos);
    let stop = textEnd(end, pos);
    // No messages: `]}` is the second line.
    if (messages.length === 0 && stop - pos === 2 && buf[pos] === 0x5d && buf[pos + 1] === 0x7d) break;
    const more = buf[stop - 1] === COMMA;
    if (more) stop--;
    messages.push(pos, stop);
    pos = end + 1;
    if (!more) {
      end = lineEnd(pos);
      const closing = buf.toString("utf8", pos, textEnd(end, pos));
      if (closing !== MESSAGES_CLOSE) return null;
      break;
    }
  }
  // Only whitespace may follow.
  if (buf.toString("utf8", end).trim() !== "") return null;
  return { header, messages };
}
