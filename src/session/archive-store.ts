// A session's archive on disk: `archive/<handle>.json`, one file per span that left the view, written
// atomically and only ever before the snapshot that names it, so a snapshot never refers to a file a
// crash kept from being written. Reading says plainly what is wrong with a file that is missing or was
// changed by hand; it never throws for that, so a session with a damaged archive still resumes.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ArchiveFileSchema, HandleSchema, type ArchiveFile } from "../agent/archive.js";
import type { ArchiveRead } from "../agent/context/archive-index.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readProblem, readRegularFile } from "../fs/regular-file.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { jsonWithMessages } from "../wire/serialize.js";

/** Far above any span a conversation could fold away; a file past it was not written by hel. */
const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

const fileOf = (archiveDir: string, handle: string): string => join(archiveDir, `${handle}.json`);

/** Writes one span's file: its messages as the bytes they were sent as. */
export async function writeArchive(archiveDir: string, file: ArchiveFile): Promise<void> {
  await mkdir(archiveDir, { recursive: true });
  await writeFileAtomic(fileOf(archiveDir, file.handle), jsonWithMessages(file, new ByteWriter()));
}

export type { ArchiveRead };

export async function readArchive(archiveDir: string, handle: string): Promise<ArchiveRead> {
  if (!HandleSchema.safeParse(handle).success) return { ok: false, error: `${JSON.stringify(handle)} is not a handle` };
  const path = fileOf(archiveDir, handle);
  let text: string;
  try {
    // Not through a link: what it leads to is not the span hel archived.
    text = await readRegularFile(path, MAX_ARCHIVE_BYTES, false);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, error: `its archive file ${path} is missing (deleted?)` };
    return { ok: false, error: `its archive file ${path} ${code === "ELOOP" ? "is a symbolic link, which hel does not follow" : readProblem(e)}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: `its archive file ${path} is not valid JSON (changed by hand?)` };
  }
  const parsed = ArchiveFileSchema.safeParse(raw);
  if (!parsed.success || parsed.data.handle !== handle) return { ok: false, error: `its archive file ${path} is not a hel archive of ${handle} (changed by hand?)` };
  return { ok: true, file: parsed.data };
}
