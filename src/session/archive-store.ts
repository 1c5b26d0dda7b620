// A session's archive on disk: `archive/<handle>.json`, one file per span that left the view, written
// atomically and only ever before the snapshot that names it, so a snapshot never refers to a file a
// crash kept from being written. The snapshot's index keeps each file's SHA-256: a file that no longer
// matches was changed outside hel and is never served as the exact span. Reading says plainly what is
// wrong with a file that is missing or was changed; it never throws for that, so a session with a
// damaged archive still resumes (with one warning line, see changedArchives).
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ArchiveFileSchema, HandleSchema, type ArchiveEntry, type ArchiveFile } from "../agent/archive.js";
import type { ArchiveRead } from "../agent/context/archive-index.js";
import { writeFileAtomic, type AtomicWriteOptions } from "../fs/atomic-write.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { jsonWithMessages } from "../wire/serialize.js";
import { oneLine } from "./errors.js";

const fileOf = (archiveDir: string, handle: string): string => join(archiveDir, `${handle}.json`);
const sha256Of = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * Writes one span's file: its messages as the bytes they were sent as; `commit` fences its rename
 * (lease.ts). Returns the SHA-256 of what it wrote, for the index.
 */
export async function writeArchive(archiveDir: string, file: ArchiveFile, commit?: AtomicWriteOptions["commit"]): Promise<string> {
  await mkdir(archiveDir, { recursive: true });
  const bytes = jsonWithMessages(file, new ByteWriter());
  await writeFileAtomic(fileOf(archiveDir, file.handle), bytes, commit ? { commit } : {});
  return sha256Of(bytes);
}

export type { ArchiveRead };

/** The span of `entry`, from its file, if the file is still the one hel wrote (when the entry has its hash). */
export async function readArchive(archiveDir: string, entry: Pick<ArchiveEntry, "handle" | "sha256">): Promise<ArchiveRead> {
  const { handle } = entry;
  if (!HandleSchema.safeParse(handle).success) return { ok: false, error: `${JSON.stringify(handle)} is not a handle` };
  const path = fileOf(archiveDir, handle);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, error: code === "ENOENT" ? `its archive file ${path} is missing (deleted?)` : `its archive file could not be read (${oneLine((e as Error).message)})` };
  }
  if (entry.sha256 !== undefined && sha256Of(bytes) !== entry.sha256) {
    return { ok: false, error: `its archive file ${path} was changed outside hel (it no longer matches the SHA-256 the session keeps), so it cannot be served as the exact span` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { ok: false, error: `its archive file ${path} is not valid JSON (changed by hand?)` };
  }
  const parsed = ArchiveFileSchema.safeParse(raw);
  if (!parsed.success || parsed.data.handle !== handle) return { ok: false, error: `its archive file ${path} is not a hel archive of ${handle} (changed by hand?)` };
  return { ok: true, file: parsed.data };
}

/** The handles of the index whose files are missing or no longer match their hash. */
export async function changedArchives(archiveDir: string, entries: readonly ArchiveEntry[]): Promise<string[]> {
  const changed: string[] = [];
  for (const entry of entries) {
    if (entry.sha256 === undefined) continue;
    const bytes = await readFile(fileOf(archiveDir, entry.handle)).catch(() => null);
    if (bytes === null || sha256Of(bytes) !== entry.sha256) changed.push(entry.handle);
  }
  return changed;
}
