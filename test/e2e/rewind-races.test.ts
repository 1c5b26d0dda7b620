// Rewinds and checkpoints under kills and interrupts, with the built hel, real git and real processes:
// a rewind killed with kill -9 at random moments can always be undone with nothing lost; a checkpoint
// whose hel and git were killed leaves a stale index.lock that the next run clears; Ctrl-C during a
// long first checkpoint ends it and the command waiting on it never runs; a rewind names the files it
// left as they are.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointDir, MAX_FILE_BYTES } from "../../src/changes/checkpoints.js";
import { collect, HEL, helEnv, runHel } from "../helpers/hel.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";
import { treeFingerprint } from "../helpers/tree-fingerprint.js";

const startSim = simulators();
const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });
const FILES = 150;

const fingerprint = (dir: string) => treeFingerprint(dir, ".hel");

/** A session whose one turn, by a command, rewrites many files, deletes one and makes one. */
async function manyFilesSession(project: string): Promise<string> {
  await mkdir(join(project, "many"));
  for (let i = 0; i < FILES; i++) await writeFile(join(project, "many", `f${i}`), `v0 ${i}\n`);
  await writeFile(join(project, "keep.txt"), "kept\n");
  const s = await startSim({ script: [call("run_command", { command: `for f in many/*; do echo v1 >> "$f"; done; rm keep.txt; echo new > new.txt` }), { content: "done" }] });
  const run = await runHel({ args: ["-C", project, "--tools", "run_command", "rewrite"], baseUrl: s.url });
  expect(run.code, run.stderr).toBe(0);
  return sessionIdOf(run.stderr)!;
}

describe("a rewind killed with kill -9", () => {
  it("at random moments is always undoable: the undo brings back every file as it was before the rewind", async () => {
    const hits = { before: 0, half: 0, after: 0 };
    for (let round = 0; round < 6; round++) {
      const project = await tempProject();
      const id = await manyFilesSession(project);
      const before = await fingerprint(project);
      const child = spawn(process.execPath, [HEL, "-C", project, "rewind", id, "--to", "1", "--files"], { env: helEnv(undefined), stdio: ["ignore", "pipe", "pipe"] });
      const done = collect(child, null);
      // Half the kills aim at the files being written: just after the rewind's journal appears.
      const journal = join(await checkpointDir(project), "rewinds", `${id}_.json`);
      if (round % 2 === 1) await waitFor(() => existsSync(journal) || child.exitCode !== null, "the rewind's journal", { timeoutMs: 20_000, everyMs: 1 });
      await new Promise((resolve) => setTimeout(resolve, round % 2 === 1 ? Math.floor(Math.random() * 40) : 200 + Math.floor(Math.random() * 1200)));
      child.kill("SIGKILL");
      await done;
      const killedAt = await fingerprint(project);
      if (JSON.stringify(killedAt) === JSON.stringify(before)) hits.before++;
      else if (existsSync(join(project, "new.txt")) || !existsSync(join(project, "keep.txt"))) hits.half++;
      else hits.after++;
      // The dead holder's lease would be taken over once stale (test/session/lease.test.ts); here it is cleared at once.
      await rm(join(project, ".hel/sessions", id, ".active"), { recursive: true, force: true });
      const undo = await runHel({ args: ["-C", project, "rewind", id, "--to", "rewind", "--files"] });
      if (undo.code !== 0) expect(undo.stderr, `round ${round}`).toContain("no rewind to undo");
      expect(await fingerprint(project), `round ${round}: ${undo.stdout}${undo.stderr}`).toEqual(before);
    }
    // What the kills hit (not asserted: the timing is the machine's).
    console.log(`kill -9 during rewinds: ${JSON.stringify(hits)}`);
  });
});

describe("a checkpoint killed with its git", () => {
  it("leaves a stale index.lock that the next run clears, and checkpoints go on", async () => {
    const project = await tempProject();
    for (let i = 0; i < 400; i++) await writeFile(join(project, `f${i}.txt`), `${i} ${"x".repeat(20_000)}\n`);
    await writeFile(join(project, "a.txt"), "one\n");
    const store = await checkpointDir(project);
    let leftByKill = 0;
    for (let round = 0; round < 5; round++) {
      const s = await startSim({ script: [call("run_command", { command: "true" }), { content: "done" }] });
      // Its own process group, so that the kill takes git with it, as a kill of a terminal's job does.
      const child = spawn(process.execPath, [HEL, "-C", project, "--tools", "run_command", "go"], { env: helEnv(s.url), stdio: ["ignore", "pipe", "pipe"], detached: true });
      const done = collect(child, null);
      await waitFor(() => existsSync(join(store, "index.lock")) || child.exitCode !== null, "git to take its index lock", { timeoutMs: 20_000, everyMs: 2 });
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      await done;
      if (existsSync(join(store, "index.lock"))) leftByKill++;
    }
    // Where no kill hit git while it held the lock, one is left as such a kill leaves it.
    if (!existsSync(join(store, "index.lock"))) await writeFile(join(store, "index.lock"), "");
    console.log(`index.lock left by ${leftByKill} of 5 kills`);
    const s = await startSim({ script: [call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }), { content: "done" }] });
    const run = await runHel({ args: ["-C", project, "--tools", "search_replace", "edit"], baseUrl: s.url });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("checkpoint");
    const id = sessionIdOf(run.stderr)!;
    const shown = JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", id, "--json"] })).stdout);
    expect(shown.checkpoints.map((c: { kind: string }) => c.kind)).toEqual(["turn", "end"]);
  });
});

/** A git whose `add` takes as long as a huge project's would: it touches `started`, then waits. */
async function slowGit(): Promise<{ path: string; started: string }> {
  const bin = await tempProject();
  const started = join(bin, "add-started");
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  await writeFile(join(bin, "git"), `#!/bin/sh\nfor a in "$@"; do if [ "$a" = add ]; then touch '${started}'; sleep 120 & p=$!; trap 'kill $p; exit 130' TERM INT; wait $p; exit 1; fi; done\nexec '${realGit}' "$@"\n`);
  await chmod(join(bin, "git"), 0o755);
  return { path: `${bin}:${process.env.PATH}`, started };
}

describe("Ctrl-C during a long first checkpoint", () => {
  it("ends the checkpoint, and the command that waited on it never runs", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const git = await slowGit();
    const s = await startSim({ script: [call("run_command", { command: "touch ran.txt" }), { content: "done" }] });
    const child = spawn(process.execPath, [HEL, "-C", project, "--tools", "run_command", "touch"], { env: helEnv(s.url, { PATH: git.path }), stdio: ["ignore", "pipe", "pipe"] });
    const done = collect(child, null);
    await waitFor(() => existsSync(git.started), "the checkpoint's git add", { timeoutMs: 20_000 });
    child.kill("SIGINT");
    const result = await done;
    expect(result.code, result.stderr).not.toBe(0);
    expect(existsSync(join(project, "ran.txt"))).toBe(false);
    expect(result.stderr).not.toContain("could not checkpoint");
  });

  it("in the interactive prompt too: the turn ends, the command never runs, the prompt comes back", async () => {
    const { inTerminal } = await import("../helpers/terminal.js");
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const git = await slowGit();
    const s = await startSim({ script: [call("run_command", { command: "touch ran.txt" }), { content: "done" }, { content: "second answer" }] });
    const term = inTerminal(["-C", project, "--tools", "run_command"], s.url, { NO_COLOR: "1", PATH: git.path });
    await term.until((screen) => screen.includes("› "), "the prompt");
    term.type("touch it\r");
    await waitFor(() => existsSync(git.started), "the checkpoint's git add", { timeoutMs: 20_000 });
    term.type("\x03");
    await term.until((screen) => screen.split("› ").length - 1 >= 2, "the prompt after the interrupt");
    expect(existsSync(join(project, "ran.txt"))).toBe(false);
    term.type("\x04");
    await term.exited;
    expect(existsSync(join(project, "ran.txt"))).toBe(false);
  });
});

describe("a rewind of files left out of a checkpoint", () => {
  it("names them and leaves them as they are", async () => {
    const project = await tempProject();
    await writeFile(join(project, "data.bin"), "small\n");
    await writeFile(join(project, "a.txt"), "one\n");
    const s = await startSim({
      script: [call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }), call("run_command", { command: `truncate -s ${MAX_FILE_BYTES + 1} data.bin` }), { content: "done" }],
    });
    const run = await runHel({ args: ["-C", project, "--tools", "search_replace,run_command", "grow"], baseUrl: s.url });
    expect(run.code, run.stderr).toBe(0);
    const id = sessionIdOf(run.stderr)!;
    const back = await runHel({ args: ["-C", project, "rewind", id, "--to", "1", "--files"] });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain("files put back: a.txt");
    expect(back.stdout).toContain("left as they are (not checkpointed: over 10 MB, or holding the API key): data.bin");
    expect((await stat(join(project, "data.bin"))).size).toBe(MAX_FILE_BYTES + 1);
    await truncate(join(project, "data.bin"), 3);
    const undo = await runHel({ args: ["-C", project, "rewind", id, "--to", "rewind", "--files"] });
    expect(undo.code, undo.stderr).toBe(0);
    expect((await stat(join(project, "data.bin"))).size).toBe(3);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("two\n");
  });
});
