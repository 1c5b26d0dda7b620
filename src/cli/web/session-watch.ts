// When a session's saved state changes: hel saves a session by renaming a new snapshot.json over the
// old one, last, after its transcripts and archives, so a change of that file is the one sign that
// there is more to show. Its version is what stat says of it (inode, size, modification time): a
// rename gives a new inode, a rewrite a new time. Watching is fs.watch on the session's directory,
// reached through no link; events about other files are only a cue to look again.
import { watch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import { ownDir } from "../../fs/own-dir.js";
import { sessionPaths } from "../../session/paths.js";

/** The snapshot's version, or "none" when there is no snapshot to read. */
export async function snapshotVersion(projectDir: string, id: string): Promise<string> {
  const { snapshot } = sessionPaths(projectDir, id);
  try {
    const info = await stat(snapshot);
    return `${info.ino}-${info.size}-${info.mtimeMs}`;
  } catch {
    return "none";
  }
}

/**
 * Calls `changed` with the new version each time the snapshot's version differs from the last one
 * seen (starting from `seen`). Events come in bursts (a temporary file, then the rename): one look a
 * short while after the first. Resolves to what stops watching; null when the directory cannot be
 * watched (it is missing, or a link).
 */
export async function watchSession(projectDir: string, id: string, seen: string, changed: (version: string) => void): Promise<(() => void) | null> {
  const { dir } = sessionPaths(projectDir, id);
  if (!(await ownDir(projectDir, dir, false).catch(() => false))) return null;
  let last = seen;
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher;
  const look = async () => {
    timer = null;
    const version = await snapshotVersion(projectDir, id);
    if (version !== last) {
      last = version;
      changed(version);
    }
  };
  try {
    watcher = watch(dir, { persistent: false }, () => {
      timer ??= setTimeout(() => void look(), 50);
    });
  } catch {
    return null;
  }
  // A directory removed while watched (`hel sessions rm`) ends the watch, not the server.
  watcher.on("error", () => watcher.close());
  // The snapshot may have changed between the caller's look and this watch.
  void look();
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
