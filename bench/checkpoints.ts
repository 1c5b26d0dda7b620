// File checkpoints (src/changes/checkpoints.ts) against plain git on the same tree. Contract: a
// generated project of 10,000 small text files (in os.tmpdir(), deleted afterwards) checkpointed once,
// then a turn's worth of change (three files edited) checkpointed again, several times; and the first
// checkpoint of a 50,000-file project. Each is set beside `git add -A && git write-tree` run in a
// scratch copy of the same tree with a fresh repository (first) or after the same three edits (next),
// so the ratio says what hel's own directory, exclusions and size checks cost over git itself.
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openCheckpoints } from "../src/changes/checkpoints.js";
import { time, writeTree } from "./generated-tree.js";

export interface CheckpointTimes {
  files: number;
  firstMs: number;
  gitFirstMs: number;
  nextMs: number[];
  gitNextMs: number[];
}

/** Three files of the tree, edited the same way in the project and in git's copy. */
async function editThree(root: string, round: number): Promise<void> {
  for (let k = 0; k < 3; k++) await writeFile(join(root, `d${k}`, "e0", `f${k}.ts`), `// round ${round}\n`);
}

export async function measureCheckpoints(options: { files: number; rounds: number; log: (line: string) => void }): Promise<CheckpointTimes> {
  const root = await mkdtemp(join(tmpdir(), "hel-bench-checkpoints-"));
  const project = join(root, "project");
  const copy = join(root, "copy");
  try {
    options.log(`checkpoints: writing ${options.files} files`);
    mkdirSync(project);
    writeTree(project, options.files);
    await cp(project, copy, { recursive: true });
    const git = (...args: string[]) => execFileSync("git", args, { cwd: copy, stdio: "pipe" });
    git("init", "-q");
    const gitAdd = () => {
      git("add", "-A");
      git("write-tree");
    };
    const gitFirstMs = await time(gitAdd);
    // The store goes to a state folder of the bench's own, deleted with the rest.
    const store = await openCheckpoints(project, { env: { ...process.env, XDG_STATE_HOME: join(root, "state") } });
    const firstMs = await time(() => store.record("bench/", "first"));
    const nextMs: number[] = [];
    const gitNextMs: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      await editThree(copy, round);
      gitNextMs.push(await time(gitAdd));
      await editThree(project, round);
      nextMs.push(await time(() => store.record("bench/", `round ${round}`)));
    }
    return { files: options.files, firstMs, gitFirstMs, nextMs, gitNextMs };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
