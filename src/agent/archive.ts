// The archive's records, defined once for writing and reading: the index entry a snapshot keeps for
// each span that left the view (a fold or a compaction), and the file `archive/<handle>.json` that
// holds the span itself, its messages exactly as they were sent, and whose hash the entry keeps.
import { z } from "../zod.js";
import { MessageSchema, type WithMessages } from "../wire/messages.js";

const ARCHIVE_KINDS = ["fold", "compaction"] as const;
export type ArchiveKind = (typeof ARCHIVE_KINDS)[number];

/** 4 to 12 lowercase letters and digits, unique in the session. */
export const HandleSchema = z.string().regex(/^[a-z0-9]{4,12}$/, "a handle is 4 to 12 lowercase letters and digits");

export const ArchiveEntrySchema = z.object({
  handle: HandleSchema,
  kind: z.enum(ARCHIVE_KINDS),
  /** A fold hel made itself (auto-fold), not the model; absent otherwise. */
  auto: z.literal(true).optional(),
  /** The first and last stamp inside the span; null when it holds no stamped message. */
  first_stamp: z.number().int().positive().nullable(),
  last_stamp: z.number().int().positive().nullable(),
  /** The fold's note, or the compaction's summary: what stands in the view for the span. */
  note: z.string(),
  /** Project files the span's tool calls touched. */
  files: z.array(z.string()),
  /**
   * The SHA-256 of the archive file's bytes, hex, set once the file is written: a file that no longer
   * matches was changed outside hel. Absent in snapshots written before archives were checked.
   */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type ArchiveEntry = z.infer<typeof ArchiveEntrySchema>;

export const ArchiveFileSchema = ArchiveEntrySchema.omit({ sha256: true }).extend({
  /** The stamps of the span's messages, in order. */
  stamps: z.array(z.number().int().positive()),
  messages: z.array(MessageSchema),
});
export type ArchiveFile = WithMessages<z.infer<typeof ArchiveFileSchema>>;

/** The note's first line, cut to a length a list or a hint can show. */
export function noteHeadline(note: string, max = 80): string {
  const line =
    note
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
