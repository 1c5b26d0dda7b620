// A session's archive on disk: `archive/<handle>.json`, one file per span that left the view, written
// atomically and only ever before the snapshot that names it, so a snapshot never refers to a file a
// crash kept from being written. The snapshot's index keeps each file's SHA-256: a file that no longer
// matches was changed outside hel and is never served as the exact span. Files are reached through
// real directories only and opened without following a link (fs/own-dir.ts). Reading says plainly
// what is wrong with a file that is missing or was changed; it never throws for that, so a session
// with a damaged archive still resumes (with one warning line, see `changed`).
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { ArchiveFileSchema, HandleSchema, type ArchiveEntry, type ArchiveFile } from "../agent/archive.js";
import type { ArchiveRead } from "../agent/context/archive-index.js";
import { writeFileAtomic, type AtomicWriteOptions } from "../fs/atomic-write.js";
import { ownDir } from "../fs/own-dir.js";
import { FileRefused, readProblem } from "../fs/regular-file.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { jsonWithMessages } from "../wire/serialize.js";
import { oneLine } from "./errors.js";
import { sessionPaths } from "./paths.js";

export type { ArchiveRead };

export interface ArchiveStore {
  /** Writes one span's file, its messages as the bytes they were sent as; `commit` fences its rename (lease.ts). Resolves to its SHA-256. */
  write(file: ArchiveFile, commit?: AtomicWriteOptions["commit"]): Promise<string>;
  /** The span of `entry`, if its file is still the one hel wrote (when the entry has its hash). */
  read(entry: Pick<ArchiveEntry, "handle" | "sha256">): Promise<ArchiveRead>;
  /** The handles of the index whose files are missing or no longer match their hash. */
  changed(entries: readonly ArchiveEntry[]): Promise<string[]>;
  /** The entries, each without a hash given that of its file as it is now (a session the user adopts); a missing file's stays without. */
  withHashes(entries: readonly ArchiveEntry[]): Promise<ArchiveEntry[]>;
  /** A file's bytes exactly, as `read` would find them (a fork copies them); null when it is missing. */
  bytes(handle: string): Promise<Buffer | null>;
  /** Writes `bytes` as the file of `handle` (another session's, copied by a fork). */
  copy(handle: string, bytes: Uint8Array): Promise<void>;
}

const sha256Of = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

export function archiveStore(projectDir: string, id: string): ArchiveStore {
  const dir = sessionPaths(projectDir, id).archive;
  const fileOf = (handle: string): string => join(dir, `${handle}.json`);
  /** The file's bytes; null when it is missing. */
  const bytesOf = async (handle: string): Promise<Buffer | null> => {
    if (!(await ownDir(projectDir, dir, false))) return null;
    const handleOpen = await open(fileOf(handle), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e.code === "ELOOP" ? new FileRefused("is a symbolic link, which hel does not follow") : e;
    });
    if (handleOpen === null) return null;
    try {
      if (!(await handleOpen.stat()).isFile()) throw new FileRefused("is not a regular file");
      return await handleOpen.readFile();
    } finally {
      await handleOpen.close();
    }
  };
  const put = async (handle: string, bytes: Uint8Array, commit?: AtomicWriteOptions["commit"]): Promise<void> => {
    await ownDir(projectDir, dir, true);
    await writeFileAtomic(fileOf(handle), bytes, commit ? { commit } : {});
  };
  return {
    async write(file, commit) {
      const bytes = jsonWithMessages(file, new ByteWriter());
      await put(file.handle, bytes, commit);
      return sha256Of(bytes);
    },
    async read(entry) {
      const { handle } = entry;
      if (!HandleSchema.safeParse(handle).success) return { ok: false, error: `${JSON.stringify(handle)} is not a handle` };
      const path = fileOf(handle);
      let bytes: Buffer | null;
      try {
        bytes = await bytesOf(handle);
      } catch (e) {
        return { ok: false, error: `its archive file ${path} ${oneLine(readProblem(e))}` };
      }
      if (bytes === null) return { ok: false, error: `its archive file ${path} is missing (deleted?)` };
      // A signed index keeps every file's hash; one without was missing when the session was adopted.
      if (entry.sha256 === undefined) return { ok: false, error: `its archive file ${path} has no SHA-256 in the session (it was missing when the session was adopted), so it cannot be served as the exact span` };
      if (sha256Of(bytes) !== entry.sha256) {
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
    },
    async changed(entries) {
      const changed: string[] = [];
      for (const entry of entries) {
        if (entry.sha256 === undefined) continue;
        const bytes = await bytesOf(entry.handle).catch(() => null);
        if (bytes === null || sha256Of(bytes) !== entry.sha256) changed.push(entry.handle);
      }
      return changed;
    },
    async withHashes(entries) {
      const out: ArchiveEntry[] = [];
      for (const entry of entries) {
        const bytes = entry.sha256 === undefined ? await bytesOf(entry.handle).catch(() => null) : null;
        out.push(bytes === null ? entry : { ...entry, sha256: sha256Of(bytes) });
      }
      return out;
    },
    bytes: bytesOf,
    copy: (handle, bytes) => put(handle, bytes),
  };
}
