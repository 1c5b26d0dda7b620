// Checkpoints with real git and real files: a record and a restore put back content, modes, created
// and deleted files; ignored files, .hel/ and big files are left alone; the project's own .git is
// untouched byte for byte; nothing a project's git config plants runs.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, readdir, stat, writeFile, rm, truncate } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, checkpointDir, openCheckpoints } from "../../src/changes/checkpoints.js";
import { tempProject } from "../helpers/temp-project.js";

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

/** Every file under `dir` with its mode and content hash, to compare trees byte for byte. */
async function fingerprint(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path);
    lines.push(`${path.slice(dir.length)} ${info.mode.toString(8)} ${entry.isFile() ? createHash("sha256").update(await readFile(path)).digest("hex") : "dir"}`);
  }
  return lines.sort();
}

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
