// The commit HEAD points to in the git repository holding a directory, read from the repository's own
// files rather than by running git, so finding it costs a session's start no process: `.git` as a
// directory or as a file naming one (worktrees, submodules), a branch resolved through its loose ref or
// packed-refs, a worktree's shared directory (commondir). Null outside a repository, on a branch with
// no commit yet, and for anything else unexpected.
import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export async function gitHead(dir: string): Promise<string | null> {
  try {
    const gitDir = await findGitDir(dir);
    if (!gitDir) return null;
    const head = (await readFile(join(gitDir, "HEAD"), "utf8")).trim();
    if (OBJECT_ID.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref) return null;
    const common = await readFile(join(gitDir, "commondir"), "utf8").then(
      (text) => resolve(gitDir, text.trim()),
      () => gitDir,
    );
    for (const base of new Set([gitDir, common])) {
      const loose = (await readFile(join(base, ref), "utf8").catch(() => "")).trim();
      if (OBJECT_ID.test(loose)) return loose;
    }
    const packed = await readFile(join(common, "packed-refs"), "utf8").catch(() => "");
    for (const line of packed.split("\n")) {
      const [id, name] = line.trim().split(" ");
      if (name === ref && id && OBJECT_ID.test(id)) return id;
    }
    return null;
  } catch {
    return null;
  }
}

async function findGitDir(start: string): Promise<string | null> {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const info = await stat(dotGit).catch(() => null);
    if (info?.isDirectory()) return dotGit;
    if (info?.isFile()) {
      const target = /^gitdir: (.+)$/m.exec(await readFile(dotGit, "utf8"))?.[1];
      return target ? resolve(dir, target.trim()) : null;
    }
    if (dirname(dir) === dir) return null;
  }
}
