// A project tree for the grep and find_files tests: every kind of file a search must skip next to the
// ones it must find. Every file holds "needle", so what a search finds is exactly what it did not skip.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";

export const TREE: Record<string, string | Buffer> = {
  ".gitignore": "*.log\nbuild/\n/secret.txt\n",
  ".github/workflows/ci.yml": "needle ci\n",
  "README.md": "needle in readme\n",
  "app.log": "needle in log\n",
  "bin.dat": Buffer.from("needle\0binary\n"),
  "build/out.js": "needle built\n",
  "secret.txt": "needle secret\n",
  "src/a.ts": "const needle = 1;\nother\n",
  "src/b.ts": "no\nneedle again\n",
  "src/deep/c.ts": "needle deep\n",
  // A deeper .gitignore adds its own rules and re-includes what the root's excluded.
  "sub/.gitignore": "local.txt\n!keep.log\n",
  "sub/keep.log": "needle kept\n",
  "sub/other.log": "needle other log\n",
  "sub/local.txt": "needle local\n",
  "sub/ok.txt": "needle ok\n",
  // The root's "/secret.txt" is anchored to the root.
  "sub/secret.txt": "needle sub secret\n",
  "sub/node_modules/pkg/index.js": "needle nested module\n",
  "node_modules/pkg/index.js": "needle module\n",
  ".git/config": "needle git\n",
  ".hel/sessions/s0/snapshot.json": "needle hel\n",
};

/** The files a search of the whole tree must find, in the search's order. */
export const FOUND = [".github/workflows/ci.yml", "README.md", "src/a.ts", "src/b.ts", "src/deep/c.ts", "sub/keep.log", "sub/ok.txt", "sub/secret.txt"];

/** Writes TREE into `dir`, plus symlinks the search must not follow: out of the project and within it. */
export async function writeSearchTree(dir: string, outside: string): Promise<void> {
  for (const [rel, content] of Object.entries(TREE)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  await writeFile(path.join(outside, "private.txt"), "needle outside\n");
  await symlink(path.join(outside, "private.txt"), path.join(dir, "link-out.txt"));
  await symlink(outside, path.join(dir, "link-dir"));
  await symlink(path.join(dir, "src", "a.ts"), path.join(dir, "link-in.ts"));
  await symlink(path.join(dir, "src"), path.join(dir, "src-link"));
}
