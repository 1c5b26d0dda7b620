// The session's archive as the agent sees it: the index of spans that left the view, the files of
// spans archived in this process (kept in memory until saved, so recall works before the first save),
// and a reader for the rest, given each entry (and so the hash its file must have). The loop adds to it when it folds or compacts; the session persists it
// at each save; fold, compaction, recall, ask and hints read it.
import type { ArchiveEntry, ArchiveFile } from "../archive.js";

export type ArchiveRead = { ok: true; file: ArchiveFile } | { ok: false; error: string };

export class ArchiveIndex {
  private readonly inMemory = new Map<string, ArchiveFile>();
  private readonly unsaved: ArchiveFile[] = [];

  constructor(
    private readonly list: ArchiveEntry[],
    private readonly readFromDisk: (entry: ArchiveEntry) => Promise<ArchiveRead>,
  ) {}

  get entries(): readonly ArchiveEntry[] {
    return this.list;
  }

  find(handle: string): ArchiveEntry | undefined {
    return this.list.find((e) => e.handle === handle);
  }

  /** A span that just left the view: indexed at once, written to disk before the next save. */
  add(file: ArchiveFile): void {
    const { stamps: _, messages: __, ...entry } = file;
    this.list.push(entry);
    this.inMemory.set(file.handle, file);
    this.unsaved.push(file);
  }

  /** Files not yet on disk, oldest first; `written` marks one as saved, with the hash of its bytes. */
  pending(): readonly ArchiveFile[] {
    return this.unsaved;
  }

  written(handle: string, sha256: string): void {
    const at = this.unsaved.findIndex((f) => f.handle === handle);
    if (at >= 0) this.unsaved.splice(at, 1);
    const entry = this.find(handle);
    if (entry) entry.sha256 = sha256;
  }

  async read(handle: string): Promise<ArchiveRead> {
    const entry = this.find(handle);
    if (!entry) {
      const known = this.list.map((e) => e.handle).join(", ");
      return { ok: false, error: `no archived span has the handle ${JSON.stringify(handle)}${known ? ` (handles: ${known})` : " (nothing is archived yet)"}` };
    }
    return this.inMemory.get(handle) ? { ok: true, file: this.inMemory.get(handle)! } : this.readFromDisk(entry);
  }
}
