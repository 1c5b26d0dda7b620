// A merge killed with kill -9: real `hel worktrees merge` processes, each paused between the files it
// writes (HEL_TEST_MERGE_PAUSE_MS) and killed at a different point of the merge, once per point. After
// each kill every file is as before or as after the merge; the next start (`hel worktrees ls`) finishes
// the merge and says so, leaving the tree exactly as after; when a file was edited after the kill, it
// rolls it back instead, keeping the edit and the worktree, and says that. A conversation's start settles it too.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stateDirOf } from "../../src/worktrees/place.js";
import { makeWorktree } from "../../src/worktrees/worktrees.js";
import { HEL, helEnv, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { treeFingerprint } from "../helpers/tree-fingerprint.js";
import { simulators } from "../helpers/simulators.js";
import { waitFor } from "../helpers/wait.js";

const sim = simulators();

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });
const PAUSE_MS = 30;
const FILES = 8;

async function project(): Promise<string> {
  const dir = await tempProject();
  git(dir, "init", "--quiet", "-b", "main");
  for (let i = 0; i < FILES; i++) await writeFile(join(dir, `f${i}.txt`), `file ${i}\n`);
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "-m", "one");
  return dir;
}

/** The project's files (not .git, not hel's own), as lines. */
const files = async (dir: string) => (await treeFingerprint(dir, ".git")).filter((l) => !l.startsWith("/.hel"));
/** The same without the temporary files a killed write leaves, which the next start removes. */
const settledFiles = async (dir: string) => (await files(dir)).filter((l) => !/\/\.hel-rewind-[0-9a-f]+\.tmp /.test(l));

/** A worktree `name` that changes most files, adds some and removes one; the project's files as they will be after its merge. */
async function changedWorktree(dir: string, name: string, round: number): Promise<string[]> {
  const wt = await makeWorktree({ projectDir: dir, name, branch: `hel/${name}` });
  for (let i = 1; i < FILES; i++) await writeFile(join(wt.dir, `f${i}.txt`), `file ${i}, round ${round}\n`);
  await writeFile(join(wt.dir, `new${round}.txt`), "new\n");
  await rm(join(wt.dir, "f0.txt"), { force: true });
  return (await treeFingerprint(wt.dir, ".git")).filter((l) => !l.startsWith("/.git"));
}

/** Runs `hel worktrees merge <name>` and kills it `afterMs` after its journal appeared (or at once when -1, before there is one). */
async function killedMerge(dir: string, name: string, afterMs: number): Promise<void> {
  const journal = join(await stateDirOf(dir), "journal.json");
  const child = spawn(process.execPath, [HEL, "worktrees", "merge", name], { cwd: dir, env: helEnv(undefined, { HEL_TEST_MERGE_PAUSE_MS: String(PAUSE_MS) }), stdio: "ignore" });
  const closed = new Promise((resolve) => child.on("close", resolve));
  if (afterMs >= 0) await waitFor(() => existsSync(journal) || child.exitCode !== null, "the merge's journal", { everyMs: 1, timeoutMs: 30_000 });
  await new Promise((resolve) => setTimeout(resolve, Math.max(afterMs, 0)));
  child.kill("SIGKILL");
  await closed;
}

describe("a worktree merge killed with kill -9", () => {
  it("leaves every file as before or as after, and the next start finishes it and says so", async () => {
    const dir = await project();
    let finished = 0;
    for (const [round, afterMs] of [-1, 0, PAUSE_MS + 5, PAUSE_MS * 4 + 10, PAUSE_MS * 20].entries()) {
      const name = `w${round}`;
      const before = await files(dir);
      const after = await changedWorktree(dir, name, round);
      await killedMerge(dir, name, afterMs);
      const now = await settledFiles(dir);
      const byPath = (lines: string[]) => new Map(lines.map((l) => [l.split(" ")[0], l]));
      const [was, will] = [byPath(before), byPath(after)];
      for (const path of new Set([...was.keys(), ...will.keys(), ...byPath(now).keys()])) expect([was.get(path), will.get(path)], `${path} in round ${round}`).toContain(byPath(now).get(path));

      const next = await runHel({ args: ["worktrees", "ls"], cwd: dir });
      expect(next.code).toBe(0);
      if (next.stderr.includes("hel finished it")) {
        finished++;
        expect(next.stderr).toContain(`hel: the merge of worktree "${name}" was interrupted; hel finished it (${round === 0 ? FILES + 1 : FILES} files)`);
      } else {
        // Killed before it began to write, or after it ended: nothing to settle.
        expect(next.stderr).toBe("");
        if ((await files(dir)).join() !== after.join()) expect((await runHel({ args: ["worktrees", "merge", name], cwd: dir })).code).toBe(0);
      }
      expect(await files(dir)).toEqual(after);
      expect((await runHel({ args: ["worktrees", "ls"], cwd: dir })).stdout).toBe("no worktrees\n");
    }
    expect(finished).toBeGreaterThan(1);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
  });

  it("rolls the merge back when a file changed after the kill, keeping the edit and the worktree", async () => {
    const dir = await project();
    const before = await files(dir);
    await changedWorktree(dir, "w", 0);
    await killedMerge(dir, "w", PAUSE_MS * 3 + 10);
    // f0.txt goes first (removals come first), so by now it is gone; the user brings it back, edited.
    expect(existsSync(join(dir, "f0.txt"))).toBe(false);
    await writeFile(join(dir, "f0.txt"), "the user's\n");
    const next = await runHel({ args: ["worktrees", "ls"], cwd: dir });
    expect(next.stderr).toContain(`hel: the merge of worktree "w" was interrupted and files changed since; hel rolled it back (${FILES + 1} files) and kept the worktree`);
    const now = await files(dir);
    expect(now.filter((l) => !l.startsWith("/f0.txt "))).toEqual(before.filter((l) => !l.startsWith("/f0.txt ")));
    expect(await readFile(join(dir, "f0.txt"), "utf8")).toBe("the user's\n");
    expect(next.stdout).toContain("w  hel/w");
  });

  it("is settled when hel next opens the project for a conversation, which says so", async () => {
    const dir = await project();
    const after = await changedWorktree(dir, "w", 0);
    await killedMerge(dir, "w", PAUSE_MS * 2 + 5);
    const s = await sim({ script: [{ content: "hello" }] });
    const run = await runHel({ args: ["-C", dir, "hi"], baseUrl: s.url });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`hel: the merge of worktree "w" was interrupted; hel finished it (${FILES + 1} files)`);
    expect(await files(dir)).toEqual(after);
  });
});
