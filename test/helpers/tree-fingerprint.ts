// A folder's files as lines (path, mode, content hash), to compare trees byte for byte across a change.
import { createHash } from "node:crypto";
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Every entry under `dir` but those under `skip` (relative to it), sorted. */
export async function treeFingerprint(dir: string, skip?: string): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (skip !== undefined && path.startsWith(join(dir, skip))) continue;
    const info = await stat(path);
    lines.push(
      `${path.slice(dir.length)} ${(info.mode & 0o7777).toString(8)} ${
        entry.isFile()
          ? createHash("sha256")
              .update(await readFile(path))
              .digest("hex")
          : "dir"
      }`,
    );
  }
  return lines.sort();
}
