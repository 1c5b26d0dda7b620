// Git stays the user's: each way a sandboxed command planted something for git to run outside the
// sandbox (a nested repository, registered or not, a submodule's git directory, a linked worktree's
// `.git` file, a symlinked hooks or config, a `commondir`), run as a real command under edit, then real
// `git status` and `git commit` run afterwards by the "user", with a marker file outside the project that
// the planted program would create.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCommandTool } from "../../../src/tools/command/run-command.js";
import { toolProject } from "../../helpers/tools.js";

const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, env: ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** A project holding a repository with one commit, and where a planted program would leave its mark. */
async function repository() {
  const p = await toolProject("edit");
  git(p.dir, "init", "-q");
  await writeFile(path.join(p.dir, "a.txt"), "a\n");
  git(p.dir, "add", "a.txt");
  git(p.dir, "commit", "-qm", "one");
  const marker = path.join(p.outside, "ran");
  // What every attack plants: a program that leaves the marker (and fails, so git carries on).
  const program = `touch ${marker}; false`;
  const hook = `printf '#!/bin/sh\\ntouch ${marker}\\n' > HOOK && chmod +x HOOK`;
  return { ...p, marker, program, hookAt: (file: string) => hook.replaceAll("HOOK", file) };
}

const run = (ctx: Parameters<typeof runCommandTool.run>[1], command: string) => runCommandTool.run({ command }, ctx);
const putBack = (out: string) => out.split("\n").find((line) => line.startsWith("Git settings and hooks are the user's"));

/** The user's git afterwards: status (which looks into submodules and registered nested repositories) and a commit. */
function userGit(dir: string): void {
  git(dir, "status", "--porcelain");
  git(dir, "commit", "-q", "--allow-empty", "-m", "user's commit");
}

describe.runIf(process.platform === "linux")("git stays the user's", () => {
  it("a nested repository registered in the index keeps no core.fsmonitor, and its hooks go", async () => {
    const { ctx, dir, marker, program, hookAt } = await repository();
    const out = await run(
      ctx,
      [
        "git init -q sub && git -C sub config core.fsmonitor " + JSON.stringify(program),
        "git -C sub config user.name planted && git -C sub config remote.origin.url https://example.com/x.git",
        "git -C sub -c user.email=t@t commit -q --allow-empty -m x && git add sub 2>/dev/null",
        hookAt("sub/.git/hooks/pre-commit"),
        "echo registered",
      ].join(" && "),
    );
    expect(out.split("\n")).toContain("registered");
    expect(putBack(out)).toBe("Git settings and hooks are the user's, so what the command changed there was put back: sub/.git/config: settings that run programs removed; sub/.git/hooks/pre-commit removed.");
    userGit(dir);
    git(path.join(dir, "sub"), "commit", "-q", "--allow-empty", "-m", "in sub");
    expect(existsSync(marker)).toBe(false);
    // What runs nothing stays.
    expect(git(path.join(dir, "sub"), "config", "--list", "--local").split("\n")).toEqual(expect.arrayContaining(["user.name=planted", "remote.origin.url=https://example.com/x.git"]));
  });

  it("an unregistered nested repository, new or the user's own, runs nothing afterwards; the user's is put back byte for byte", async () => {
    const { ctx, dir, marker, program } = await repository();
    git(dir, "init", "-q", "vendor/lib");
    const before = await readFile(path.join(dir, "vendor/lib/.git/config"), "utf8");
    const out = await run(ctx, `git -C vendor/lib config core.fsmonitor '${program}' && git init -q docs && git -C docs config core.fsmonitor '${program}' && git -C docs config core.pager '${program}' && echo planted`);
    expect(out.split("\n")).toContain("planted");
    expect(putBack(out)).toBe("Git settings and hooks are the user's, so what the command changed there was put back: vendor/lib/.git/config put back; docs/.git/config: settings that run programs removed.");
    expect(await readFile(path.join(dir, "vendor/lib/.git/config"), "utf8")).toBe(before);
    for (const nested of ["vendor/lib", "docs"]) git(path.join(dir, nested), "status");
    expect(existsSync(marker)).toBe(false);
    expect(git(path.join(dir, "docs"), "config", "--list", "--local")).not.toMatch(/fsmonitor|pager/);
  });

  it("a submodule's git directory under .git/modules is put back, config and hooks", async () => {
    const { ctx, dir, outside, marker, program, hookAt } = await repository();
    const source = path.join(outside, "lib-src");
    git(outside, "init", "-q", "lib-src");
    git(source, "commit", "-q", "--allow-empty", "-m", "lib");
    git(dir, "submodule", "add", "-q", source, "lib");
    git(dir, "commit", "-qm", "submodule");
    const out = await run(ctx, `git config --file .git/modules/lib/config core.fsmonitor '${program}' && ${hookAt(".git/modules/lib/hooks/pre-commit")} && echo planted`);
    expect(out.split("\n")).toContain("planted");
    expect(putBack(out)).toBe("Git settings and hooks are the user's, so what the command changed there was put back: .git/modules/lib/config put back; .git/modules/lib/hooks put back.");
    userGit(dir);
    git(path.join(dir, "lib"), "commit", "-q", "--allow-empty", "-m", "in lib");
    expect(existsSync(marker)).toBe(false);
  });

  it("a linked worktree's .git file pointed at a planted git directory is put back", async () => {
    const { ctx, dir, marker, program } = await repository();
    git(dir, "worktree", "add", "-q", "wt");
    const gitfile = await readFile(path.join(dir, "wt", ".git"), "utf8");
    const out = await run(ctx, `git init -q --bare planted.git && git --git-dir=planted.git config core.fsmonitor '${program}' && printf 'gitdir: %s\\n' "$PWD/planted.git" > wt/.git && echo planted`);
    expect(out.split("\n")).toContain("planted");
    expect(putBack(out)).toBe("Git settings and hooks are the user's, so what the command changed there was put back: wt/.git put back; planted.git/config: settings that run programs removed.");
    expect(await readFile(path.join(dir, "wt", ".git"), "utf8")).toBe(gitfile);
    userGit(path.join(dir, "wt"));
    expect(existsSync(marker)).toBe(false);
  });

  it("a symlinked .git/hooks or .git/config: what they point to stays read-only, and the links are put back", async () => {
    const { ctx, dir, marker, program, hookAt } = await repository();
    await mkdir(path.join(dir, "githooks"));
    execFileSync("mv", [path.join(dir, ".git", "config"), path.join(dir, "gitconfig")]);
    await symlink("../gitconfig", path.join(dir, ".git", "config"));
    execFileSync("rm", ["-rf", path.join(dir, ".git", "hooks")]);
    await symlink("../githooks", path.join(dir, ".git", "hooks"));
    const out = await run(
      ctx,
      [
        `${hookAt("githooks/pre-commit")} || echo target refused`,
        `git config core.fsmonitor '${program}' || echo config refused`,
        `rm .git/hooks && mkdir .git/hooks && ${hookAt(".git/hooks/pre-commit")}`,
        `rm .git/config && cp gitconfig .git/config && git config core.fsmonitor '${program}' && echo replaced`,
      ].join("; "),
    );
    expect(out.split("\n")).toEqual(expect.arrayContaining(["target refused", "config refused", "replaced"]));
    expect(putBack(out)).toBe("Git settings and hooks are the user's, so what the command changed there was put back: .git/config put back; .git/hooks put back.");
    expect(await readlink(path.join(dir, ".git", "hooks"))).toBe("../githooks");
    expect(await readlink(path.join(dir, ".git", "config"))).toBe("../gitconfig");
    userGit(dir);
    expect(existsSync(marker)).toBe(false);
  });

  it("a commondir planted in the top git directory, leading git to a planted config, is removed", async () => {
    const { ctx, dir, marker, program } = await repository();
    const out = await run(ctx, `cp -r .git planted && git --git-dir=planted config core.fsmonitor '${program}' ; echo ../planted > .git/commondir && echo planted`);
    expect(out.split("\n")).toContain("planted");
    expect(putBack(out)).toBe("Git settings and hooks are the user's, so what the command changed there was put back: .git/commondir put back.");
    expect(existsSync(path.join(dir, ".git", "commondir"))).toBe(false);
    userGit(dir);
    expect(existsSync(marker)).toBe(false);
  });

  it("says nothing when a command only works with git as a user does", async () => {
    const { ctx } = await repository();
    const out = await run(ctx, "echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm two && git init -q fixture && git -C fixture config user.name t && echo done");
    expect(out.split("\n").slice(1)).toEqual(["done"]);
  });
});
