// A clone that plants a checkpoint store gets nothing run and nothing of the user's touched: hel's
// store lives in the state folder, and an old or planted `.hel/checkpoints/` is never read. The built
// hel, untrusted, against the simulator; real git, real files. Also: no checkpoint holds the API key,
// and `sessions rm` takes a session's checkpoints with it.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointDir } from "../../src/changes/checkpoints.js";
import { runHel } from "../helpers/hel.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";
import { treeFingerprint } from "../helpers/tree-fingerprint.js";

const startSim = simulators();
const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

const fingerprint = (dir: string) => treeFingerprint(dir);

/** One turn that edits a.txt (and so checkpoints the project), untrusted; the session's id. */
async function editTurn(project: string, env: Record<string, string> = {}): Promise<string> {
  const s = await startSim({ script: [call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }), { content: "done" }] });
  const run = await runHel({ args: ["-C", project, "--tools", "read_file,search_replace", "edit a"], baseUrl: s.url, env });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toContain("checkpoint");
  expect(await readFile(join(project, "a.txt"), "utf8")).toBe("two\n");
  return sessionIdOf(run.stderr)!;
}

const checkpointsOf = async (project: string, id: string): Promise<{ kind: string; commit: string; left_out: string[] }[]> =>
  JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", id, "--json"] })).stdout).checkpoints;

describe("a planted checkpoint store", () => {
  it("with a filter, an fsmonitor and attributes in its config runs nothing; the checkpoint is made in the state folder", async () => {
    const project = await tempProject();
    const marker = join(project, "..", `planted-ran-${Date.now()}`);
    const planted = join(project, ".hel/checkpoints");
    await mkdir(planted, { recursive: true });
    git(planted, "init", "-q", "--bare");
    git(planted, "config", "filter.x.clean", `touch ${marker}`);
    git(planted, "config", "filter.x.smudge", `touch ${marker}`);
    git(planted, "config", "filter.x.required", "true");
    git(planted, "config", "core.fsmonitor", `touch ${marker}`);
    await writeFile(join(planted, "info/attributes"), "* filter=x\n");
    // The project's own attributes and config name the same filter.
    await writeFile(join(project, ".gitattributes"), "* filter=x diff=x\n");
    git(project, "init", "-q");
    git(project, "config", "filter.x.clean", `touch ${marker}`);
    git(project, "config", "diff.x.textconv", `touch ${marker}`);
    await writeFile(join(project, "a.txt"), "one\n");
    const plantedBefore = await fingerprint(planted);

    const id = await editTurn(project);
    expect(existsSync(marker)).toBe(false);
    expect((await checkpointsOf(project, id)).map((c) => c.kind)).toEqual(["turn", "end"]);
    const store = await checkpointDir(project);
    expect((await stat(store)).mode & 0o777).toBe(0o700);
    expect(git(project, "--git-dir", store, "for-each-ref", "--format=%(refname)", `refs/hel/${id}/`).trim().split("\n")).toHaveLength(2);
    expect(await fingerprint(planted)).toEqual(plantedBefore);
  });

  it("as a symlink to the project's .git changes nothing of the user's repository", async () => {
    const project = await tempProject();
    git(project, "init", "-q");
    await writeFile(join(project, "a.txt"), "one\n");
    git(project, "add", "a.txt");
    git(project, "commit", "-qm", "first");
    await writeFile(join(project, "untracked.txt"), "u\n");
    await mkdir(join(project, ".hel"));
    await symlink("../.git", join(project, ".hel/checkpoints"));
    const before = await fingerprint(join(project, ".git"));
    await editTurn(project);
    expect(await fingerprint(join(project, ".git"))).toEqual(before);
    expect(git(project, "status", "--porcelain")).toBe(" M a.txt\n?? untracked.txt\n");
  });

  it("as a symlink to a folder elsewhere makes no repository there", async () => {
    const project = await tempProject();
    const elsewhere = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    await mkdir(join(project, ".hel"));
    await symlink(elsewhere, join(project, ".hel/checkpoints"));
    await editTurn(project);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});

describe("secrets and removed sessions", () => {
  it("a file holding the API key is left out and listed; no object of the store holds the key, after the file is deleted too", async () => {
    const project = await tempProject();
    const key = `sk-${createHash("sha256").update(String(Math.random())).digest("hex")}`;
    await writeFile(join(project, ".env"), `DEEPSEEK_API_KEY=${key}\n`);
    await writeFile(join(project, "a.txt"), "one\n");
    const id = await editTurn(project, { DEEPSEEK_API_KEY: key });
    expect((await checkpointsOf(project, id)).map((c) => c.left_out)).toEqual([[".env"], [".env"]]);
    await rm(join(project, ".env"));
    const s = await startSim({ script: [call("search_replace", { path: "a.txt", old_text: "two", new_text: "three" }), { content: "done" }] });
    const again = await runHel({ args: ["-C", project, "--resume", id, "--tools", "search_replace", "again"], baseUrl: s.url, env: { DEEPSEEK_API_KEY: key } });
    expect(again.code, again.stderr).toBe(0);
    const store = await checkpointDir(project);
    const objects = execFileSync("git", ["--git-dir", store, "cat-file", "--batch-all-objects", "--batch"], { maxBuffer: 1 << 28 });
    expect(objects.includes("three\n")).toBe(true);
    expect(objects.includes(key)).toBe(false);
    // Nor any file of the store as it lies on disk (index, journals, packs' names).
    expect(() => execFileSync("grep", ["-r", "-l", "-F", key, store], { stdio: "pipe" })).toThrow();
  });

  it("sessions rm removes the session's checkpoint refs and the objects only they kept", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const kept = await editTurn(project);
    const gone = await editTurnFrom(project, "two", `only-${Date.now()}`);
    // The removed session's own checkpoint commits: no other ref keeps them.
    const own = (await checkpointsOf(project, gone)).map((c) => c.commit);
    const store = await checkpointDir(project);
    const refs = () => git(project, "--git-dir", store, "for-each-ref", "--format=%(refname)").split("\n").filter(Boolean);
    expect(refs().some((r) => r.startsWith(`refs/hel/${gone}/`))).toBe(true);
    for (const commit of own) execFileSync("git", ["--git-dir", store, "cat-file", "-e", commit]);
    const removed = await runHel({ args: ["-C", project, "sessions", "rm", gone] });
    expect(removed.code, removed.stderr).toBe(0);
    expect(refs().filter((r) => r.startsWith(`refs/hel/${gone}/`))).toEqual([]);
    expect(refs().filter((r) => r.startsWith(`refs/hel/${kept}/`))).toHaveLength(2);
    for (const commit of own) expect(() => execFileSync("git", ["--git-dir", store, "cat-file", "-e", commit], { stdio: "pipe" })).toThrow();
  });
});

/** One turn that replaces `word` in a.txt by `by`; the session's id. */
async function editTurnFrom(project: string, word: string, by: string): Promise<string> {
  const s = await startSim({ script: [call("search_replace", { path: "a.txt", old_text: word, new_text: by }), { content: "done" }] });
  const run = await runHel({ args: ["-C", project, "--tools", "search_replace", "edit"], baseUrl: s.url });
  expect(run.code, run.stderr).toBe(0);
  return sessionIdOf(run.stderr)!;
}
