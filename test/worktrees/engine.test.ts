// The worktree engine with real git in temporary projects: a worktree holds the project as it is (edits
// and untracked files, not ignored ones) and leaves the user's HEAD, index, stash and branch alone;
// merges land disjoint changes, apply nothing on any conflict, keep a user's edit made meanwhile; nothing
// the project plants in its git (hooks, fsmonitor, filters, merge drivers) runs; names cannot escape;
// `.git` is clean once the worktrees are gone; several made at once on first use, in one process or
// several, make hel's store once, and a store a killed process left half made does not stop the next.
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergeWorktree } from "../../src/worktrees/merge.js";
import { stateDirOf } from "../../src/worktrees/place.js";
import { WorktreeError } from "../../src/worktrees/types.js";
import { commitWorktree, listWorktrees, lockWorktree, makeWorktree, removeWorktree } from "../../src/worktrees/worktrees.js";
import { compiledSrc } from "../helpers/compiled-src.js";
import { tempProject } from "../helpers/temp-project.js";
import { treeFingerprint } from "../helpers/tree-fingerprint.js";

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

/** A repository with one commit of a.txt and b.txt (ten lines each) and an ignore file. */
async function repo(): Promise<string> {
  const dir = await tempProject();
  git(dir, "init", "--quiet", "-b", "main");
  const lines = (p: string) => `${Array.from({ length: 10 }, (_, i) => `${p}${i}`).join("\n")}\n`;
  await writeFile(join(dir, "a.txt"), lines("a"));
  await writeFile(join(dir, "b.txt"), lines("b"));
  await writeFile(join(dir, ".gitignore"), "*.log\n");
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "-m", "one");
  return dir;
}

/** A node process running an ES module's text: its exit code and what it wrote to stderr. */
const node = (script: string) =>
  new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }));
  });

/** What the user's git state is: HEAD, branch, index, stash, status. */
const userState = (dir: string) => [git(dir, "rev-parse", "HEAD"), git(dir, "symbolic-ref", "HEAD"), git(dir, "ls-files", "--stage"), git(dir, "stash", "list"), git(dir, "status", "--porcelain")].join("--\n");

const projectFiles = (dir: string) => treeFingerprint(dir, ".git").then((lines) => lines.filter((l) => !l.startsWith("/.hel")));

const replaceLine = async (file: string, from: string, to: string) => writeFile(file, (await readFile(file, "utf8")).replace(`${from}\n`, `${to}\n`));

async function expectCode(promise: Promise<unknown>, code: WorktreeError["code"]): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorktreeError);
  expect((error as WorktreeError).code).toBe(code);
}

describe("worktrees", () => {
  it("hold the project as it is now, edits and untracked files but not ignored ones, and leave HEAD, index, stash and branch alone", async () => {
    const dir = await repo();
    await replaceLine(join(dir, "a.txt"), "a1", "edited");
    await writeFile(join(dir, "staged.txt"), "staged\n");
    git(dir, "add", "staged.txt");
    await writeFile(join(dir, "new.txt"), "untracked\n");
    await writeFile(join(dir, "noise.log"), "ignored\n");
    const before = userState(dir);
    const wt = await makeWorktree({ projectDir: dir, name: "c1", branch: "hel/s1/c1" });
    expect(wt.dir).toBe(join(dir, ".hel/worktrees/c1"));
    expect(userState(dir)).toBe(before);
    expect(await readFile(join(wt.dir, "a.txt"), "utf8")).toContain("edited\n");
    expect(await readFile(join(wt.dir, "staged.txt"), "utf8")).toBe("staged\n");
    expect(await readFile(join(wt.dir, "new.txt"), "utf8")).toBe("untracked\n");
    expect(existsSync(join(wt.dir, "noise.log"))).toBe(false);
    expect(existsSync(join(wt.dir, ".hel"))).toBe(false);
    expect(git(wt.dir, "status", "--porcelain")).toBe("");
    expect(git(dir, "rev-parse", "hel/s1/c1")).toBe(`${wt.base}\n`);
    expect(git(dir, "rev-parse", `${wt.base}^`)).toBe(git(dir, "rev-parse", "HEAD"));
  });

  it("merge disjoint changes of two worktrees and a user's edit made meanwhile, then leave no branch or worktree entry in .git", async () => {
    const dir = await repo();
    const one = await makeWorktree({ projectDir: dir, name: "one", branch: "hel/s1/one" });
    const two = await makeWorktree({ projectDir: dir, name: "two", branch: "hel/s1/two" });
    await replaceLine(join(one.dir, "a.txt"), "a2", "one was here");
    await writeFile(join(one.dir, "made.txt"), "made\n");
    await replaceLine(join(two.dir, "b.txt"), "b8", "two was here");
    await rm(join(two.dir, ".gitignore"));
    await replaceLine(join(dir, "a.txt"), "a7", "the user was here");
    const headBefore = git(dir, "rev-parse", "HEAD");

    const first = await mergeWorktree(dir, one);
    expect(first).toEqual({
      status: "applied",
      files: [
        { path: "a.txt", added: 1, removed: 1 },
        { path: "made.txt", added: 1, removed: 0 },
      ],
      conflicts: [],
    });
    const second = await mergeWorktree(dir, two);
    expect(second.status).toBe("applied");
    const a = await readFile(join(dir, "a.txt"), "utf8");
    expect(a).toContain("one was here\n");
    expect(a).toContain("the user was here\n");
    expect(await readFile(join(dir, "b.txt"), "utf8")).toContain("two was here\n");
    expect(await readFile(join(dir, "made.txt"), "utf8")).toBe("made\n");
    expect(existsSync(join(dir, ".gitignore"))).toBe(false);
    expect(git(dir, "rev-parse", "HEAD")).toBe(headBefore);

    expect(await listWorktrees(dir)).toEqual([]);
    expect(git(dir, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
    expect(existsSync(join(dir, ".hel/worktrees/one"))).toBe(false);
  });

  it("report no changes and remove a worktree nothing was changed in", async () => {
    const dir = await repo();
    const wt = await makeWorktree({ projectDir: dir, name: "idle", branch: "hel/idle" });
    expect(await mergeWorktree(dir, wt)).toEqual({ status: "no changes", files: [], conflicts: [] });
    expect(existsSync(wt.dir)).toBe(false);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
  });

  it.each([
    ["text", async (p: string) => replaceLine(join(p, "a.txt"), "a3", `mine ${p.length}`), "a.txt"],
    ["binary", async (p: string) => writeFile(join(p, "a.txt"), Buffer.from([0, 1, 2, p.length % 256])), "a.txt"],
    [
      "mode",
      async (p: string, side: "ours" | "theirs") =>
        side === "ours" ? chmod(join(p, "b.txt"), 0o755).then(() => replaceLine(join(p, "b.txt"), "b1", "x")) : rm(join(p, "b.txt")).then(() => symlink("a.txt", join(p, "b.txt"))),
      "b.txt",
    ],
    ["deleted", async (p: string, side: "ours" | "theirs") => (side === "ours" ? rm(join(p, "a.txt")) : replaceLine(join(p, "a.txt"), "a3", "kept")), "a.txt"],
  ] as const)("apply nothing on a %s conflict and keep the worktree and its branch", async (kind, change, path) => {
    const dir = await repo();
    const wt = await makeWorktree({ projectDir: dir, name: "c", branch: "hel/s/c" });
    await change(wt.dir, "theirs");
    await writeFile(join(wt.dir, "other.txt"), "would land\n");
    await change(dir, "ours");
    const before = await projectFiles(dir);
    const outcome = await mergeWorktree(dir, wt);
    expect(outcome.status).toBe("conflict");
    expect(outcome.conflicts.map((c) => [c.path, c.kind])).toEqual([[path, kind]]);
    if (kind === "text") {
      expect(outcome.conflicts[0]!.ours).toEqual([`mine ${dir.length}`]);
      expect(outcome.conflicts[0]!.theirs).toEqual([`mine ${wt.dir.length}`]);
    }
    expect(await projectFiles(dir)).toEqual(before);
    expect(existsSync(wt.dir)).toBe(true);
    expect(git(dir, "for-each-ref", "--format=%(refname)", "refs/heads/hel")).toBe("refs/heads/hel/s/c\n");
    expect((await listWorktrees(dir)).map((l) => [l.name, l.kept])).toEqual([["c", `conflict in ${path}`]]);
  });

  it("keep a user's edit made between the snapshot and the write", async () => {
    const dir = await repo();
    const wt = await makeWorktree({ projectDir: dir, name: "c", branch: "hel/c" });
    await replaceLine(join(wt.dir, "a.txt"), "a1", "theirs");
    let edits = 0;
    const outcome = await mergeWorktree(dir, wt, { beforeWrite: async () => (edits++ === 0 ? replaceLine(join(dir, "a.txt"), "a8", "the user, late") : undefined) });
    expect(outcome.status).toBe("applied");
    expect(edits).toBe(2);
    const a = await readFile(join(dir, "a.txt"), "utf8");
    expect(a).toContain("theirs\n");
    expect(a).toContain("the user, late\n");
  });

  it("refuse to remove unmerged changes without --force, and remove them with it", async () => {
    const dir = await repo();
    const wt = await makeWorktree({ projectDir: dir, name: "c", branch: "hel/c" });
    await writeFile(join(wt.dir, "work.txt"), "work\n");
    await expectCode(removeWorktree(dir, "c"), "unmerged");
    expect(existsSync(join(wt.dir, "work.txt"))).toBe(true);
    expect((await listWorktrees(dir)).map((l) => [l.name, l.kept, l.files])).toEqual([["c", "unmerged changes", [{ path: "work.txt", added: 1, removed: 0 }]]]);
    await lockWorktree(dir, "c");
    expect((await listWorktrees(dir))[0]!.kept).toBe("in use");
    expect((await commitWorktree(dir, wt)).files).toEqual([{ path: "work.txt", added: 1, removed: 0 }]);
    await removeWorktree(dir, "c", { force: true });
    expect(existsSync(wt.dir)).toBe(false);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
    expect(git(dir, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  });

  it("refuse names and branches that could leave .hel/worktrees/ or refs/heads/hel/, making nothing", async () => {
    const dir = await repo();
    for (const name of ["../x", "a/b", ".", "..", "x.lock", "-x", "", "a b", "x..y"]) await expectCode(makeWorktree({ projectDir: dir, name, branch: "hel/ok" }), "name");
    for (const branch of ["main", "refs/heads/x", "hel/../x", "hel/a/../../b", "hel", "hel/", "hel/x.lock", "hel/a/b/c/d"]) await expectCode(makeWorktree({ projectDir: dir, name: "ok", branch }), "name");
    await expectCode(removeWorktree(dir, "../.."), "name");
    expect(existsSync(join(dir, ".hel"))).toBe(false);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
  });

  it("never use, merge or remove a worktree folder hel did not make", async () => {
    const dir = await repo();
    await mkdir(join(dir, ".hel/worktrees/planted"), { recursive: true });
    await writeFile(join(dir, ".hel/worktrees/planted/evil.txt"), "evil\n");
    await expectCode(makeWorktree({ projectDir: dir, name: "planted", branch: "hel/planted" }), "not-hel's");
    await expectCode(mergeWorktree(dir, { name: "planted" }), "not-hel's");
    await expectCode(removeWorktree(dir, "planted", { force: true }), "not-hel's");
    expect(existsSync(join(dir, ".hel/worktrees/planted/evil.txt"))).toBe(true);
    expect(existsSync(join(dir, "evil.txt"))).toBe(false);
    // A worktree of hel's whose .git a command pointed elsewhere is not merged either.
    const wt = await makeWorktree({ projectDir: dir, name: "mine", branch: "hel/mine" });
    await writeFile(join(wt.dir, ".git"), `gitdir: ${join(dir, ".git")}\n`);
    await expectCode(mergeWorktree(dir, wt), "not-hel's");
    await removeWorktree(dir, "mine", { force: true });
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
  });

  it("run no hook, fsmonitor, filter or merge driver the project's git names", async () => {
    const dir = await repo();
    const marker = join(dir, "..", `${dir.split("/").pop()}-ran`);
    const script = join(dir, ".git", "evil.sh");
    await writeFile(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
    await chmod(script, 0o755);
    for (const hook of ["post-checkout", "pre-commit", "post-commit", "reference-transaction", "post-index-change"]) {
      await writeFile(join(dir, ".git/hooks", hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`);
      await chmod(join(dir, ".git/hooks", hook), 0o755);
    }
    git(dir, "config", "core.fsmonitor", script);
    git(dir, "config", "filter.evil.clean", script);
    git(dir, "config", "filter.evil.smudge", script);
    git(dir, "config", "merge.evil.driver", `${script} %O %A %B`);
    git(dir, "config", "diff.evil.textconv", script);
    await writeFile(join(dir, ".gitattributes"), "*.txt filter=evil merge=evil diff=evil\n");
    await rm(marker, { force: true });
    await writeFile(join(dir, "c.txt"), "c\n");
    const wt = await makeWorktree({ projectDir: dir, name: "c", branch: "hel/c" });
    await replaceLine(join(wt.dir, "a.txt"), "a1", "theirs");
    await replaceLine(join(dir, "a.txt"), "a8", "ours");
    expect((await mergeWorktree(dir, wt)).status).toBe("applied");
    const other = await makeWorktree({ projectDir: dir, name: "d", branch: "hel/d" });
    await replaceLine(join(other.dir, "a.txt"), "ours", "theirs again");
    await replaceLine(join(dir, "a.txt"), "ours", "ours again");
    expect((await mergeWorktree(dir, other)).status).toBe("conflict");
    await removeWorktree(dir, "d", { force: true });
    expect(existsSync(marker)).toBe(false);
  });

  it("are made several at once on a project's first use, hel's store made once", async () => {
    const dir = await repo();
    const made = await Promise.all(["p1", "p2", "p3", "p4", "p5", "p6"].map((name) => makeWorktree({ projectDir: dir, name, branch: `hel/${name}` })));
    for (const wt of made) expect(await readFile(join(wt.dir, "a.txt"), "utf8")).toBe(await readFile(join(dir, "a.txt"), "utf8"));
    expect((await listWorktrees(dir)).map((w) => w.name).sort()).toEqual(["p1", "p2", "p3", "p4", "p5", "p6"]);
  });

  it("open hel's store from several processes at once on a project's first use", async () => {
    const dir = await repo();
    // Each process loads the engine, then waits for one moment shared by all: their first steps overlap.
    const start = Date.now() + 1500;
    const script = `const { openPlace } = await import(${JSON.stringify(join(compiledSrc(), "worktrees/place.js"))});
      await new Promise((r) => setTimeout(r, ${start} - Date.now()));
      await openPlace(${JSON.stringify(dir)});`;
    const runs = await Promise.all(Array.from({ length: 4 }, () => node(script)));
    expect(runs).toEqual(Array.from({ length: 4 }, () => ({ code: 0, stderr: "" })));
    // Nothing is left of the processes' own attempts beside the one store.
    expect((await readdir(await stateDirOf(dir))).filter((n) => n.startsWith("git")).sort()).toEqual(["git"]);
  });

  it("make hel's store whole after a process was killed making it", async () => {
    const dir = await repo();
    const state = await stateDirOf(dir);
    // What a kill leaves: an empty store folder (an older hel's), and a half-made one of the process's own.
    await mkdir(join(state, "git"), { recursive: true });
    await mkdir(join(state, "git.new-1-deadbeef", "refs"), { recursive: true });
    const wt = await makeWorktree({ projectDir: dir, name: "k", branch: "hel/k" });
    expect(await readFile(join(wt.dir, "a.txt"), "utf8")).toBe(await readFile(join(dir, "a.txt"), "utf8"));
    expect(existsSync(join(state, "git", "HEAD"))).toBe(true);
  });

  it("refuse a branch that exists, leaving it and making nothing", async () => {
    const dir = await repo();
    git(dir, "branch", "hel/taken");
    const tip = git(dir, "rev-parse", "hel/taken");
    await expectCode(makeWorktree({ projectDir: dir, name: "t", branch: "hel/taken" }), "exists");
    expect(git(dir, "rev-parse", "hel/taken")).toBe(tip);
    expect(existsSync(join(dir, ".hel/worktrees/t"))).toBe(false);
    expect(await listWorktrees(dir)).toEqual([]);
  });

  it("say so without a repository, and make nothing", async () => {
    const dir = await tempProject();
    await writeFile(join(dir, "a.txt"), "a\n");
    await expectCode(makeWorktree({ projectDir: dir, name: "c", branch: "hel/c" }), "not-a-repository");
    expect(existsSync(join(dir, ".hel"))).toBe(false);
  });
});
