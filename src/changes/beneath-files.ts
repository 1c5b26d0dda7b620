// A rewind's writes and removals, each through directories opened beneath the project without
// following a symlink (fs/beneath.ts): a command that swaps a folder for a link to elsewhere while a
// rewind runs makes that file's step fail (PathChangedError), never write or delete outside.
// A file is written whole under a temporary name in its folder and renamed over the old one.
import { constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { lstat, readdir, rename, rmdir, symlink, unlink } from "node:fs/promises";
import { openBeneath, type OpenDir } from "../fs/beneath.js";

const missing = (e: unknown): boolean => ["ENOENT", "ENOTDIR"].includes((e as NodeJS.ErrnoException).code ?? "");

/** Removes `name` in `dir`, a folder with everything in it included, never following a link. */
async function removeEntry(dir: OpenDir, name: string): Promise<void> {
  const info = await lstat(dir.entry(name)).catch((e) => (missing(e) ? null : Promise.reject(e)));
  if (!info) return;
  if (!info.isDirectory()) {
    await unlink(dir.entry(name)).catch((e) => (missing(e) ? undefined : Promise.reject(e)));
    return;
  }
  const child = await dir.child(name);
  try {
    for (const entry of await readdir(child.entry("."))) await removeEntry(child, entry);
  } finally {
    await child.close();
  }
  await rmdir(dir.entry(name));
}

/** Removes the file at `path` (relative, "/" between folders), then the folders it alone kept. */
export async function removeBeneath(root: string, path: string): Promise<void> {
  const parts = path.split("/");
  const name = parts.pop()!;
  let dir: OpenDir;
  try {
    dir = await openBeneath(root, parts);
  } catch (e) {
    if (missing(e)) return;
    throw e;
  }
  try {
    await removeEntry(dir, name);
  } finally {
    await dir.close();
  }
  // Folders the removed file alone made go too; a folder with anything else in it stays.
  while (parts.length > 0) {
    const folder = parts.pop()!;
    const parent = await openBeneath(root, parts).catch(() => null);
    if (!parent) return;
    const gone = await rmdir(parent.entry(folder)).then(
      () => true,
      () => false,
    );
    await parent.close();
    if (!gone) return;
  }
}

/** How a file being written starts its temporary name; one a kill left behind is never checkpointed. */
export const REWIND_TEMPORARY = ".hel-rewind-";

/**
 * Removes the temporary files a rewind killed mid-write left in the folders of `paths`: the file it was
 * writing is among what the next rewind puts back, so its folder is one of these.
 */
export async function removeLeftTemporaries(root: string, paths: readonly string[]): Promise<void> {
  const folders = new Set(paths.map((path) => path.split("/").slice(0, -1).join("/")));
  for (const folder of folders) {
    const dir = await openBeneath(root, folder === "" ? [] : folder.split("/")).catch(() => null);
    if (!dir) continue;
    try {
      for (const name of await readdir(dir.entry("."))) {
        if (name.startsWith(REWIND_TEMPORARY) && name.endsWith(".tmp")) await unlink(dir.entry(name)).catch(() => undefined);
      }
    } finally {
      await dir.close();
    }
  }
}

export type Content = { kind: "file"; data: Buffer; executable: boolean } | { kind: "symlink"; target: string };

/** Writes `content` at `path`, making its folders; whatever stood there (a folder included) is replaced. */
export async function writeBeneath(root: string, path: string, content: Content): Promise<void> {
  const parts = path.split("/");
  const name = parts.pop()!;
  const dir = await openBeneath(root, parts, true);
  const temporary = `${REWIND_TEMPORARY}${randomBytes(6).toString("hex")}.tmp`;
  try {
    if (content.kind === "symlink") await symlink(content.target, dir.entry(temporary));
    else {
      // Modes as git gives them: the umask applies.
      const handle = await dir.open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, content.executable ? 0o777 : 0o666);
      try {
        await handle.writeFile(content.data);
      } finally {
        await handle.close();
      }
    }
    await rename(dir.entry(temporary), dir.entry(name)).catch(async (e: NodeJS.ErrnoException) => {
      if (!["EISDIR", "ENOTEMPTY", "EEXIST", "ENOTDIR"].includes(e.code ?? "")) throw e;
      await removeEntry(dir, name);
      await rename(dir.entry(temporary), dir.entry(name));
    });
    await dir.verify();
  } catch (e) {
    await unlink(dir.entry(temporary)).catch(() => undefined);
    throw e;
  } finally {
    await dir.close();
  }
}
