// What a process killed mid-save leaves in its session directory: temporary files of atomic writes it
// never renamed, and archive files it wrote before the snapshot that would have named them. Once a
// snapshot is saved, anything of that kind is no part of the session and is removed: temporary files
// of other processes (this one's may be in flight) and archives the saved index does not name. Only
// while this process still holds the lease, checked under the store lock, so a holder that lost the
// session never removes what the process that took it over wrote.
import { readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ownDir } from "../fs/own-dir.js";
import type { ArchiveEntry } from "../agent/archive.js";
import { whileLeased, type Lease } from "./lease.js";
import type { SessionPaths } from "./paths.js";

const TMP_OF_PID = /\.(\d+)(?:-[0-9a-f]+)?\.tmp$/;

export async function removeLeftovers(projectDir: string, paths: SessionPaths, lease: Lease, named: readonly ArchiveEntry[]): Promise<void> {
  const handles = new Set(named.map((e) => `${e.handle}.json`));
  const found: string[] = [];
  for (const dir of [paths.dir, paths.children, paths.archive, paths.spill]) {
    // Only real folders of the project: through a link, the files removed would be someone else's.
    if (!(await ownDir(projectDir, dir, false).catch(() => false))) continue;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const unnamedArchive = dir === paths.archive && name.endsWith(".json") && !handles.has(name);
      if (unnamedArchive || (name.endsWith(".tmp") && Number(TMP_OF_PID.exec(name)?.[1]) !== process.pid)) found.push(join(dir, name));
    }
  }
  if (found.length === 0) return;
  // The fence that guards renames guards removals too: nothing is removed once the lease is lost.
  await whileLeased(
    projectDir,
    lease,
    () => new Error("the session's lease was lost"),
  )(async () => {
    for (const file of found) await unlink(file).catch(() => undefined);
  });
}
