// Checkpoints with real git and real files: a record and a restore put back content, modes, created
// and deleted files; ignored files, .hel/ and big files are left alone; the project's own .git is
// untouched byte for byte; nothing a project's git config plants runs.
import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, readdir, stat, writeFile, rm, truncate } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, checkpointDir, openCheckpoints } from "../../src/changes/checkpoints.js";
import { tempProject } from "../helpers/temp-project.js";
import { treeFingerprint } from "../helpers/tree-fingerprint.js";

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

const fingerprint = (dir: string) => treeFingerprint(dir);

describe("checkpoints", () => {
  it("put back changed, created and deleted files and modes, in a project that is not a git repository", async () => {
    const project = await tempProject();
    await mkdir(join(project, "src"));
    await writeFile(join(project, "src/a.txt"), "one\n");
    await writeFile(join(project, "run.sh"), "echo hi\n");
    await chmod(join(project, "run.sh"), 0o755);
    await writeFile(join(project, "gone.txt"), "kept\n");
    const before = await fingerprint(project);
    const store = await openCheckpoints(project);
    const { commit, leftOut } = await store.record("s1/", "before turn 1");
    expect(leftOut).toEqual([]);

    await writeFile(join(project, "src/a.txt"), "two\n");
    await chmod(join(project, "run.sh"), 0o644);
    await rm(join(project, "gone.txt"));
    await mkdir(join(project, "new/deep"), { recursive: true });
    await writeFile(join(project, "new/deep/made.txt"), "made\n");

    expect(await store.differences(commit)).toEqual([
      { path: "gone.txt", action: "restore" },
      { path: "new/deep/made.txt", action: "remove" },
      { path: "run.sh", action: "restore" },
      { path: "src/a.txt", action: "restore" },
    ]);
    await store.restore(commit);
    const after = (await fingerprint(project)).filter((line) => !line.startsWith("/.hel"));
    expect(after).toEqual(before);
    expect(existsSync(join(project, "new"))).toBe(false);
    expect(await store.differences(commit)).toEqual([]);
  });

  it("leave ignored files, .hel/ and files over the size limit alone, and list the big ones", async () => {
    const project = await tempProject();
    await writeFile(join(project, ".gitignore"), "build/\n");
    await mkdir(join(project, "build"));
    await writeFile(join(project, "build/out.o"), "v1");
    await writeFile(join(project, "big.bin"), "");
    await truncate(join(project, "big.bin"), MAX_FILE_BYTES + 1);
    await writeFile(join(project, "small.txt"), "v1");
    const store = await openCheckpoints(project);
    const { commit, leftOut } = await store.record("s1/", "t1");
    expect(leftOut).toEqual(["big.bin"]);

    await writeFile(join(project, "build/out.o"), "v2");
    await truncate(join(project, "big.bin"), MAX_FILE_BYTES + 2);
    await writeFile(join(project, "small.txt"), "v2");
    await mkdir(join(project, ".hel"), { recursive: true });
    await writeFile(join(project, ".hel/note"), "hel's own");
    expect(await store.restore(commit)).toEqual([{ path: "small.txt", action: "restore" }]);
    expect(await readFile(join(project, "small.txt"), "utf8")).toBe("v1");
    expect(await readFile(join(project, "build/out.o"), "utf8")).toBe("v2");
    expect((await stat(join(project, "big.bin"))).size).toBe(MAX_FILE_BYTES + 2);
    expect(await readFile(join(project, ".hel/note"), "utf8")).toBe("hel's own");
  });

  it("never touch the project's .git, and run nothing its config or hooks name", async () => {
    const project = await tempProject();
    git(project, "init", "-q");
    await writeFile(join(project, "a.txt"), "one\n");
    git(project, "add", "a.txt");
    git(project, "commit", "-qm", "first");
    const marker = join(project, "..", `ran-${Date.now()}`);
    // A planted fsmonitor and hook: git run on hel's checkpoint directory must not read them.
    git(project, "config", "core.fsmonitor", `touch ${marker}`);
    await writeFile(join(project, ".git/hooks/post-checkout"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    await writeFile(join(project, "b.txt"), "untracked\n");
    const gitBefore = await fingerprint(join(project, ".git"));

    const store = await openCheckpoints(project);
    const { commit } = await store.record("s1/", "t1");
    await writeFile(join(project, "a.txt"), "changed\n");
    await store.restore(commit);
    await store.record("s1/", "t2");

    expect(await fingerprint(join(project, ".git"))).toEqual(gitBefore);
    expect(existsSync(marker)).toBe(false);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("one\n");
  });

  it("prune the refs not kept and the objects only they held", async () => {
    const project = await tempProject();
    const store = await openCheckpoints(project);
    await writeFile(join(project, "a.txt"), "x".repeat(200_000) + Math.random());
    const first = await store.record("s1/", "t1");
    await writeFile(join(project, "a.txt"), "y".repeat(200_000) + Math.random());
    const second = await store.record("s1/", "t2");
    await store.prune("s1/", new Set([second.commit]));
    const gitDir = await checkpointDir(project);
    expect(() => execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", first.commit], { stdio: "pipe" })).toThrow();
    execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", second.commit]);
    expect(await store.size()).toBeGreaterThan(0);
  });
});

describe("hel's git obeys hel only", () => {
  it("keeps the store in the state folder, mode 700, and nothing under the project's .hel/", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    await (await openCheckpoints(project)).record("s1/", "t1");
    const dir = await checkpointDir(project);
    expect(dir.startsWith(join(process.env.XDG_STATE_HOME!, "hel", "checkpoints"))).toBe(true);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(existsSync(join(project, ".hel"))).toBe(false);
  });

  it("never records hel's state folder when the project holds it, nor a rewind's file a kill left half written", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    await writeFile(join(project, ".hel-rewind-0123456789ab.tmp"), "half written");
    const env = { ...process.env, XDG_STATE_HOME: join(project, "state") };
    const { commit } = await (await openCheckpoints(project, { env })).record("s1/", "t1");
    expect((await checkpointDir(project, env)).startsWith(join(project, "state"))).toBe(true);
    const tree = execFileSync("git", ["--git-dir", await checkpointDir(project, env), "ls-tree", "-r", "--name-only", commit], { encoding: "utf8" });
    expect(tree).toBe("a.txt\n");
  });

  it("a rewind removes the half-written files a killed rewind left in the folders it puts back", async () => {
    const project = await tempProject();
    await mkdir(join(project, "src"));
    await writeFile(join(project, "src", "a.txt"), "one\n");
    const store = await openCheckpoints(project);
    const { commit } = await store.record("s1/", "t1");
    await writeFile(join(project, "src", "a.txt"), "two\n");
    // What a rewind killed between writing a file's new content and renaming it over the old one leaves.
    await writeFile(join(project, "src", ".hel-rewind-0123456789ab.tmp"), "one\n");
    await store.restore(commit);
    expect(await readdir(join(project, "src"))).toEqual(["a.txt"]);
    expect(await readFile(join(project, "src", "a.txt"), "utf8")).toBe("one\n");
  });

  it("a project's .gitattributes changes no byte and runs no filter, whatever git's environment names", async () => {
    const project = await tempProject();
    const marker = join(project, "..", `filter-ran-${Date.now()}`);
    await writeFile(join(project, ".gitattributes"), "* text eol=lf filter=evil ident\n*.txt working-tree-encoding=UTF-16\n");
    const crlf = "one\r\ntwo $Id$\r\n";
    await writeFile(join(project, "a.txt"), crlf);
    await writeFile(join(project, "b.dat"), crlf);
    const saved = { ...process.env };
    // Config given to git through the environment (as a parent process could) must not reach hel's git.
    Object.assign(process.env, { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "filter.evil.clean", GIT_CONFIG_VALUE_0: `touch ${marker}`, GIT_CONFIG_PARAMETERS: `'filter.evil.smudge'='touch ${marker}'` });
    try {
      const store = await openCheckpoints(project);
      const { commit } = await store.record("s1/", "t1");
      await writeFile(join(project, "a.txt"), "changed\n");
      await rm(join(project, "b.dat"));
      await store.restore(commit);
    } finally {
      for (const key of ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS"]) if (saved[key] === undefined) delete process.env[key];
    }
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe(crlf);
    expect(await readFile(join(project, "b.dat"), "utf8")).toBe(crlf);
    expect(existsSync(marker)).toBe(false);
  });

  it("a file named * over the size limit is left out alone: the checkpoint keeps every other file", async () => {
    const project = await tempProject();
    for (const name of ["a.txt", "b.txt", "[ab].txt", " lead", "trail ", "#hash", "!bang"]) await writeFile(join(project, name), name);
    const store = await openCheckpoints(project);
    const first = await store.record("s1/", "t1");
    for (const name of ["*", "?", "[ab].txt"]) {
      await writeFile(join(project, name), "");
      await truncate(join(project, name), MAX_FILE_BYTES + 1);
    }
    const second = await store.record("s1/", "t2");
    expect(second.leftOut).toEqual(["*", "?", "[ab].txt"]);
    const files = (text: string) => text.split("\0").filter(Boolean).sort();
    const tree = files(execFileSync("git", ["--git-dir", await checkpointDir(project), "ls-tree", "-r", "-z", "--name-only", second.commit], { encoding: "utf8" }));
    expect(tree).toEqual([" lead", "!bang", "#hash", "a.txt", "b.txt", "trail "]);
    // Undoing the second turn: the big files stay, nothing else is removed.
    await writeFile(join(project, "c.txt"), "made since");
    const changes = await store.restore(first.commit);
    expect(changes).toEqual([
      { path: "[ab].txt", action: "keep" },
      { path: "c.txt", action: "remove" },
    ]);
    expect((await readdir(project)).sort()).toEqual([" lead", "!bang", "#hash", "*", "?", "[ab].txt", "a.txt", "b.txt", "trail "]);
    expect((await stat(join(project, "[ab].txt"))).size).toBe(MAX_FILE_BYTES + 1);
  });

  it("a file grown past the size limit is neither overwritten by a rewind nor deleted by its undo", async () => {
    const project = await tempProject();
    await writeFile(join(project, "data.bin"), "small");
    const store = await openCheckpoints(project);
    const before = await store.record("s1/", "t1");
    await truncate(join(project, "data.bin"), MAX_FILE_BYTES + 5);
    const rewindFrom = await store.record("s1/", "rewind");
    expect(await store.restore(before.commit)).toEqual([{ path: "data.bin", action: "keep" }]);
    expect((await stat(join(project, "data.bin"))).size).toBe(MAX_FILE_BYTES + 5);
    // Now small again: the undo's checkpoint left it out, so the undo leaves it too.
    await writeFile(join(project, "data.bin"), "small again");
    expect(await store.restore(rewindFrom.commit)).toEqual([{ path: "data.bin", action: "keep" }]);
    expect(await readFile(join(project, "data.bin"), "utf8")).toBe("small again");
  });

  it("checkpoints nested repositories by their files, with or without a commit; a deleted vendored repository comes back", async () => {
    const project = await tempProject();
    await mkdir(join(project, "vendor/lib"), { recursive: true });
    git(join(project, "vendor/lib"), "init", "-q");
    await writeFile(join(project, "vendor/lib/index.js"), "lib\n");
    await writeFile(join(project, "vendor/lib/.gitignore"), "build/\n");
    await mkdir(join(project, "vendor/lib/build"));
    await writeFile(join(project, "vendor/lib/build/out.js"), "built\n");
    git(join(project, "vendor/lib"), "add", "-A");
    git(join(project, "vendor/lib"), "commit", "-qm", "lib");
    await mkdir(join(project, "pkg"));
    git(join(project, "pkg"), "init", "-q");
    await writeFile(join(project, "pkg/a.txt"), "pkg\n");
    await writeFile(join(project, "top.txt"), "top\n");
    const store = await openCheckpoints(project);
    const { commit } = await store.record("s1/", "t1");
    const tree = execFileSync("git", ["--git-dir", await checkpointDir(project), "ls-tree", "-r", commit], { encoding: "utf8" });
    expect(tree).not.toContain("commit ");
    expect(
      tree
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[1])
        .sort(),
    ).toEqual(["pkg/a.txt", "top.txt", "vendor/lib/.gitignore", "vendor/lib/index.js"]);

    await rm(join(project, "vendor"), { recursive: true });
    await writeFile(join(project, "pkg/b.txt"), "new\n");
    // A nested repository made since: its files are removed by the rewind, which does not stop half-way.
    await mkdir(join(project, "fresh"));
    git(join(project, "fresh"), "init", "-q");
    await writeFile(join(project, "fresh/f.txt"), "f\n");
    await store.restore(commit);
    expect(await readFile(join(project, "vendor/lib/index.js"), "utf8")).toBe("lib\n");
    expect(existsSync(join(project, "pkg/b.txt"))).toBe(false);
    expect(existsSync(join(project, "fresh/f.txt"))).toBe(false);
    expect(existsSync(join(project, "fresh/.git"))).toBe(true);
    expect(await store.differences(commit)).toEqual([]);
    // Later checkpoints go on seeing the nested files.
    await writeFile(join(project, "vendor/lib/index.js"), "changed\n");
    expect(await store.differences(commit)).toEqual([{ path: "vendor/lib/index.js", action: "restore" }]);
  });

  it("leaves out a file holding a secret, and no object of the store holds it, after the file is gone too", async () => {
    const project = await tempProject();
    const key = `sk-${"k3y".repeat(10)}`;
    await writeFile(join(project, ".env"), `DEEPSEEK_API_KEY=${key}\n`);
    await writeFile(join(project, "a.txt"), "one\n");
    const store = await openCheckpoints(project, { secrets: [key] });
    const first = await store.record("s1/", "t1");
    expect(first.leftOut).toEqual([".env"]);
    // A tracked file that comes to hold the key is dropped before git could read it.
    await writeFile(join(project, "a.txt"), `copied ${key}\n`);
    expect((await store.record("s1/", "t2")).leftOut).toEqual([".env", "a.txt"]);
    await rm(join(project, ".env"));
    await store.record("s1/", "t3");
    const all = execFileSync("git", ["--git-dir", await checkpointDir(project), "cat-file", "--batch-all-objects", "--batch"], { maxBuffer: 1 << 28 });
    expect(all.includes(key)).toBe(false);
    expect(all.includes("one\n")).toBe(true);
  });

  it("a stale index.lock left by a killed git is cleared and checkpoints go on, past a lock of hel's whose holder is gone", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const store = await openCheckpoints(project);
    await store.record("s1/", "t1");
    await writeFile(join(await checkpointDir(project), "index.lock"), "");
    // pid 1 lives, but not since this start time: the pid was reused, the holder is gone.
    await writeFile(join(await checkpointDir(project), "hel.lock"), "1 not-its-start");
    await writeFile(join(project, "a.txt"), "two\n");
    const { commit } = await store.record("s1/", "t2");
    expect(await store.fileAt(commit, "a.txt")).toBe("two\n");
  });
});

describe("the git hel runs", () => {
  it("is never a program of the project's, whatever PATH holds", async () => {
    const project = await tempProject();
    const marker = join(project, "..", `planted-git-${Date.now()}`);
    await mkdir(join(project, "bin"));
    for (const dir of [project, join(project, "bin")]) await writeFile(join(dir, "git"), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o755 });
    await writeFile(join(project, "a.txt"), "one\n");
    const path = process.env.PATH;
    process.env.PATH = `.:bin:${join(project, "bin")}:${path}`;
    try {
      const store = await openCheckpoints(project);
      const { commit } = await store.record("s1/", "t1");
      expect(await store.fileAt(commit, "a.txt")).toBe("one\n");
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(marker)).toBe(false);
  });
});
