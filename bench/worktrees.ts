// Making a worktree (src/worktrees/worktrees.ts) against `git worktree add` alone. Contract: a generated
// project of 10,000 small committed text files (in os.tmpdir(), deleted afterwards), three of them edited
// and one new file untracked, so that hel's worktree holds the working tree as it is; each round makes one
// worktree with hel (snapshot, `worktree add --no-checkout`, checkout in hel's store, record) and one with
// `git worktree add -b` of HEAD in the same repository, each removed again untimed. The ratio says what
// the snapshot and the guard cost over git's own checkout.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeWorktree, removeWorktree } from "../src/worktrees/worktrees.js";
import { time, writeTree } from "./generated-tree.js";

export interface WorktreeTimes {
  files: number;
  helMs: number[];
  gitMs: number[];
}

export async function measureWorktrees(options: { files: number; rounds: number; log: (line: string) => void }): Promise<WorktreeTimes> {
  const root = await mkdtemp(join(tmpdir(), "hel-bench-worktrees-"));
  const project = join(root, "project");
  // hel's records and store go to a state folder of the bench's own, deleted with the rest.
  const env = { ...process.env, XDG_STATE_HOME: join(root, "state") };
  try {
    options.log(`worktrees: writing ${options.files} files`);
    mkdirSync(project);
    writeTree(project, options.files);
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], { cwd: project, stdio: "pipe" });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-q", "-m", "tree");
    for (let k = 0; k < 3; k++) writeFileSync(join(project, `d${k}`, "e0", `f${k}.ts`), "// edited\n");
    writeFileSync(join(project, "untracked.ts"), "// new\n");
    git("status", "--porcelain"); // the index's stat data fresh, as a user's git leaves it
    const helMs: number[] = [];
    const gitMs: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const name = `bench${round}`;
      helMs.push(await time(() => makeWorktree({ projectDir: project, name, branch: `hel/${name}`, env })));
      await removeWorktree(project, name, { force: true, env });
      const dir = join(root, `git${round}`);
      gitMs.push(await time(() => git("worktree", "add", "-q", "-b", `git${round}`, dir, "HEAD")));
      git("worktree", "remove", "--force", dir);
      git("branch", "-q", "-D", `git${round}`);
    }
    return { files: options.files, helMs, gitMs };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
