// `hel worktrees ls | merge | rm` and `hel sessions rm`, run as a user runs them: the listing says why
// each worktree is kept; `merge` of a conflicted one writes git-style markers into the project and
// names the files; `rm` refuses unmerged changes without --force; `sessions rm` removes the session's
// worktrees and refuses, removing nothing, when one holds unmerged changes.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import { makeWorktree } from "../../src/worktrees/worktrees.js";
import { runHel } from "../helpers/hel.js";
import { ID_A, makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

async function repo(): Promise<string> {
  const dir = await tempProject();
  git(dir, "init", "--quiet", "-b", "main");
  await writeFile(join(dir, "a.txt"), "one\ntwo\nthree\n");
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "-m", "one");
  return dir;
}

describe("hel worktrees", () => {
  it("lists the kept worktrees, merges a conflicted one with markers, and removes it", async () => {
    const dir = await repo();
    const wt = await makeWorktree({ projectDir: dir, name: "c1", branch: "hel/s1/c1", session: "s1" });
    await writeFile(join(wt.dir, "a.txt"), "one\ntheirs\nthree\n");
    await writeFile(join(dir, "a.txt"), "one\nours\nthree\n");

    const listed = await runHel({ args: ["worktrees", "ls", "--json"], cwd: dir });
    expect(JSON.parse(listed.stdout)).toEqual([{ name: "c1", session: "s1", branch: "hel/s1/c1", dir: wt.dir, files: [{ path: "a.txt", added: 1, removed: 1 }], kept: "unmerged changes" }]);
    expect((await runHel({ args: ["worktrees", "ls"], cwd: dir })).stdout).toBe("c1  hel/s1/c1  session s1  1 file (+1 −1)  unmerged changes\n");

    const refused = await runHel({ args: ["worktrees", "rm", "c1"], cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('worktree "c1" has changes not merged into the project (1 file)');

    const merged = await runHel({ args: ["worktrees", "merge", "c1"], cwd: dir });
    expect(merged.code).toBe(1);
    expect(merged.stdout).toBe("merged worktree c1 with conflicts:\n  resolve the conflict markers in: a.txt\nthen `hel worktrees rm c1`\n");
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("one\n<<<<<<< project\nours\n=======\ntheirs\n>>>>>>> hel/s1/c1\nthree\n");
    expect((await runHel({ args: ["worktrees", "ls"], cwd: dir })).stdout).toContain("merged with conflict markers in a.txt");

    expect((await runHel({ args: ["worktrees", "rm", "c1"], cwd: dir })).stdout).toBe("removed worktree c1 and its branch\n");
    expect(existsSync(wt.dir)).toBe(false);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
    expect((await runHel({ args: ["worktrees", "ls"], cwd: dir })).stdout).toBe("no worktrees\n");
  });

  it("says what to do for a name it does not know or cannot take", async () => {
    const dir = await repo();
    const missing = await runHel({ args: ["worktrees", "merge", "nope"], cwd: dir });
    expect([missing.code, missing.stderr]).toEqual([2, 'hel: no worktree "nope": `hel worktrees ls` lists them\n']);
    const escaping = await runHel({ args: ["worktrees", "rm", "../x"], cwd: dir });
    expect(escaping.code).toBe(2);
    expect(escaping.stderr).toContain('"../x" is not a worktree name');
  });

  it("sessions rm removes a session's worktrees, refusing (and removing nothing) while one holds unmerged changes", async () => {
    const dir = await repo();
    await saveSnapshot(dir, makeSnapshot(dir, ID_A));
    const wt = await makeWorktree({ projectDir: dir, name: "c1", branch: "hel/aaaa1111/c1", session: ID_A });
    await writeFile(join(wt.dir, "new.txt"), "work\n");
    const refused = await runHel({ args: ["sessions", "rm", ID_A], cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the worktree c1 of this session holds changes not merged");
    expect(existsSync(wt.dir)).toBe(true);
    expect((await runHel({ args: ["sessions", "ls", "--json"], cwd: dir })).stdout).toContain(ID_A);

    const forced = await runHel({ args: ["sessions", "rm", "--force", ID_A], cwd: dir });
    expect(forced.stdout).toBe(`removed worktree c1\nremoved session ${ID_A}\n`);
    expect(existsSync(wt.dir)).toBe(false);
    expect(git(dir, "for-each-ref", "refs/heads/hel")).toBe("");
  });
});
