// A session's archive on disk: `archive/<handle>.json`, one file per span that left the view, written
// atomically and only ever before the snapshot that names it, so a snapshot never refers to a file a
// crash kept from being written. Reading says plainly what is wrong with a file that is missing or was
// changed by hand; it never throws for that, so a session with a damaged archive still resumes.
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ArchiveFileSchema, HandleSchema, type ArchiveFile } from "../agent/archive.js";
import type { ArchiveRead } from "../agent/context/archive-index.js";
import { writeFileAtomic, type AtomicWriteOptions } from "../fs/atomic-write.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { jsonWithMessages } from "../wire/serialize.js";
import { oneLine } from "./errors.js";

const fileOf = (archiveDir: string, handle: string): string => join(archiveDir, `${handle}.json`);

/** Writes one span's file: its messages as the bytes they were sent as; `commit` fences its rename (lease.ts). */
export async function writeArchive(archiveDir: string, file: ArchiveFile, commit?: AtomicWriteOptions["commit"]): Promise<void> {
  await mkdir(archiveDir, { recursive: true });
  await writeFileAtomic(fileOf(archiveDir, file.handle), jsonWithMessages(file, new ByteWriter()), commit ? { commit } : {});
}

export type { ArchiveRead };

export async function readArchive(archiveDir: string, handle: string): Promise<ArchiveRead> {
  if (!HandleSchema.safeParse(handle).success) return { ok: false, error: `${JSON.stringify(handle)} is not a handle` };
  const path = fileOf(archiveDir, handle);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, error: code === "ENOENT" ? `its archive file ${path} is missing (deleted?)` : `its archive file could not be read (${oneLine((e as Error).message)})` };
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
