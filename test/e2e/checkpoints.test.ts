// Checkpoints, rewind and forks end to end: the built hel against the simulator, real git, real files,
// real processes. A session's turns change files (an edit, and a command that writes), `hel rewind`
// puts them back turn by turn and can be undone, a conversation rewind keeps the turns it takes out as
// a fork, a fork continues from the prompt cache, a held session refuses a rewind with exit 3, and a
// kill -9 between an edit and its save is reported at the next resume.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SimStep, Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { collect, HEL, helEnv, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";

const startSim = simulators();
const sim = (script: SimStep[]) => startSim({ script });

const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });
const read = (project: string, file: string) => readFile(join(project, file), "utf8");

async function gitFingerprint(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    lines.push(
      `${path} ${
        entry.isFile()
          ? createHash("sha256")
              .update(await readFile(path))
              .digest("hex")
          : "dir"
      } ${(await stat(path)).mtimeMs}`,
    );
  }
  return lines.sort();
}

/** A session of three turns: the first edits a.txt and makes made.txt by a command, the second edits a.txt again, the third only reads. */
async function threeTurns(project: string): Promise<{ id: string; sim: Simulator }> {
  const s = await sim([
    call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }),
    call("run_command", { command: "echo made > made.txt && chmod 755 made.txt" }),
    { content: "turn 1 done" },
    call("search_replace", { path: "a.txt", old_text: "two", new_text: "three" }),
    { content: "turn 2 done" },
    call("read_file", { path: "a.txt" }),
    { content: "turn 3 done" },
  ]);
  const run = await runHel({ args: ["-C", project, "--tools", "read_file,search_replace,run_command"], input: "change a\nchange a again\nread a\n", baseUrl: s.url });
  expect(run.code, run.stderr).toBe(0);
  return { id: sessionIdOf(run.stderr)!, sim: s };
}

describe("checkpoints and rewind", () => {
  it("put back the files of each turn, what commands made included, never touching .git, and can be undone", async () => {
    const project = await tempProject();
    execFileSync("git", ["init", "-q"], { cwd: project });
    await writeFile(join(project, "a.txt"), "one\n");
    const gitBefore = await gitFingerprint(join(project, ".git"));
    const { id } = await threeTurns(project);
    expect(await read(project, "a.txt")).toBe("three\n");
    expect(existsSync(join(project, "made.txt"))).toBe(true);

    const show = JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", id, "--json"] })).stdout);
    expect(show.turns.map((t: { n: number; preview: string }) => `${t.n} ${t.preview}`)).toEqual(["1 change a", "2 change a again", "3 read a"]);
    expect(show.checkpoints.map((c: { kind: string; turn: number }) => `${c.kind} ${c.turn}`)).toEqual(["turn 1", "end 1", "turn 2", "end 2"]);
    expect((await runHel({ args: ["-C", project, "sessions", "show", id] })).stdout).toMatch(/^files {4}[0-9a-f]{10} before turn 1, /m);

    const toTwo = await runHel({ args: ["-C", project, "rewind", id, "--to", "2", "--files"] });
    expect(toTwo.code, toTwo.stderr).toBe(0);
    expect(toTwo.stdout).toContain("files put back: a.txt");
    expect(await read(project, "a.txt")).toBe("two\n");
    expect((await stat(join(project, "made.txt"))).mode & 0o777).toBe(0o755);

    const toOne = await runHel({ args: ["-C", project, "rewind", id, "--to", "1", "--files"] });
    expect(toOne.stdout).toContain("files removed (made since): made.txt");
    expect(await read(project, "a.txt")).toBe("one\n");
    expect(existsSync(join(project, "made.txt"))).toBe(false);

    const undo = await runHel({ args: ["-C", project, "rewind", id, "--to", "rewind", "--files"] });
    expect(undo.code, undo.stderr).toBe(0);
    expect(await read(project, "a.txt")).toBe("two\n");
    expect(await gitFingerprint(join(project, ".git"))).toEqual(gitBefore);
  });

  it("a conversation rewind keeps the turns it takes out as a fork, and is refused with exit 3 while the session is in use", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const { id } = await threeTurns(project);

    // Held by a resumed hel waiting on its stdin.
    const holder = spawn(process.execPath, [HEL, "-C", project, "--resume", id], { env: helEnv("http://127.0.0.1:9"), stdio: ["pipe", "pipe", "pipe"] });
    const held = collect(holder, null);
    await waitFor(async () => existsSync(join(project, ".hel/sessions", id, ".active")), "the resumed hel to hold the lease");
    const refused = await runHel({ args: ["-C", project, "rewind", id, "--to", "2"] });
    expect(refused.code).toBe(3);
    holder.stdin!.end();
    await held;

    const rewound = await runHel({ args: ["-C", project, "rewind", id, "--to", "2", "--conversation"] });
    expect(rewound.code, rewound.stderr).toBe(0);
    const fork = /is session (\S+) /.exec(rewound.stdout)?.[1];
    expect(fork).toMatch(/^[0-9a-f-]{36}$/);
    expect(await read(project, "a.txt")).toBe("three\n");
    const kept = JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", id, "--json"] })).stdout);
    expect(kept.turns.map((t: { n: number }) => t.n)).toEqual([1]);
    expect(kept.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content)).toEqual(["[#1] change a"]);
    const whole = JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", fork!, "--json"] })).stdout);
    expect(whole.turns.map((t: { n: number }) => t.n)).toEqual([1, 2, 3]);
    expect(whole.forked_from).toEqual({ session_id: id, turn: 3 });
  });

  it("a fork at turn N sends the original's first N turns byte for byte, served from the prompt cache", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const { id, sim: s } = await threeTurns(project);
    const forked = await runHel({ args: ["-C", project, "sessions", "fork", id, "--at", "1"] });
    expect(forked.code, forked.stderr).toBe(0);
    const forkId = /as (\S+) —/.exec(forked.stdout)![1]!;
    s.push({ content: "forked answer" });
    const before = s.requests.length;
    const go = await runHel({ args: ["-C", project, "--resume", forkId, "--tools", "read_file,search_replace,run_command", "what now?"], baseUrl: s.url });
    expect(go.code, go.stderr).toBe(0);
    const body = s.requests[before]!.body as ChatRequest;
    // Turn 1's requests ended with its answer; the fork's first request is that conversation plus the new instruction.
    const turnOneEnd = s.requests[2]!.body as ChatRequest;
    expect(JSON.stringify(body.messages.slice(1, turnOneEnd.messages.length))).toBe(JSON.stringify(turnOneEnd.messages.slice(1)));
    expect(body.messages.at(-2)).toMatchObject({ role: "assistant", content: "turn 1 done" });
    // The files are as the original's later turns left them, not as after turn 1: the model is told so.
    expect(body.messages.at(-1)!.content).toMatch(/^\[#\d+\] \[hel: these files changed after the last saved turn, outside this conversation: a\.txt\]\n\nwhat now\?$/);
    expect(go.stderr).toContain("a.txt changed since the last saved turn");
    expect(s.requests[before]!.usage!.prompt_cache_hit_tokens).toBeGreaterThan(0);
  });

  it("after a kill -9 between an edit and its save, a resume names the changed files and tells the model", async () => {
    for (let round = 0; round < 3; round++) {
      const project = await tempProject();
      await writeFile(join(project, "a.txt"), "one\n");
      const s = await sim([{ content: "first turn" }, call("search_replace", { path: "a.txt", old_text: "one", new_text: "edited" }), { fault: { kind: "delay", ms: 60_000 } }]);
      const first = await runHel({ args: ["-C", project, "--tools", "read_file,search_replace", "look"], baseUrl: s.url });
      const id = sessionIdOf(first.stderr)!;
      const child = spawn(process.execPath, [HEL, "-C", project, "--resume", id, "--tools", "read_file,search_replace", "edit a"], { env: helEnv(s.url), stdio: ["pipe", "pipe", "pipe"] });
      const done = collect(child, "");
      // The edit is on disk and the next request is waiting: the turn is not saved.
      await waitFor(async () => (await read(project, "a.txt")) === "edited\n" && s.requests.length >= 3, "the edit, and the request after it");
      child.kill("SIGKILL");
      await done;
      // The dead holder's lease would be taken over once stale (test/session/lease.test.ts); here it is cleared at once.
      await rm(join(project, ".hel/sessions", id, ".active"), { recursive: true, force: true });

      const s2 = await sim([{ content: "noted" }]);
      const resumed = await runHel({ args: ["-C", project, "--resume", id, "--tools", "read_file,search_replace", "go on"], baseUrl: s2.url });
      expect(resumed.stderr).toContain(`a.txt changed since the last saved turn of session ${id}`);
      const body = s2.requests[0]!.body as ChatRequest;
      expect(body.messages.at(-1)!.content).toContain("these files changed after the last saved turn, outside this conversation: a.txt");
      const back = await runHel({ args: ["-C", project, "rewind", id, "--to", "2", "--files"] });
      expect(back.code, back.stderr).toBe(0);
      expect(await read(project, "a.txt")).toBe("one\n");
    }
  });
});

describe("/undo and /rewind in the interactive prompt", () => {
  it("/undo puts back the last turn's files; /rewind lists the turns with their files and goes on in a fork", async () => {
    const { inTerminal } = await import("../helpers/terminal.js");
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const s = await sim([
      call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }),
      { content: "turn 1 done" },
      call("search_replace", { path: "a.txt", old_text: "two", new_text: "three" }),
      { content: "turn 2 done" },
    ]);
    const term = inTerminal(["-C", project, "--tools", "read_file,search_replace"], s.url, { NO_COLOR: "1" });
    const prompts = () => term.screen().split("› ").length - 1;
    await term.until(() => prompts() === 1, "the prompt");
    term.type("first change\r");
    await term.until((screen) => screen.includes("turn 1 done") && prompts() === 2, "turn 1");
    term.type("second change\r");
    await term.until((screen) => screen.includes("turn 2 done") && prompts() === 3, "turn 2");
    term.type("/undo\r");
    await term.until((screen) => screen.includes("put back a.txt"), "the undo");
    expect(await read(project, "a.txt")).toBe("two\n");
    term.type("/rewind\r");
    await term.until((screen) => screen.includes("rewind to before turn: "), "the list of turns");
    expect(term.screen()).toMatch(/ {2}1 {2}first change {2}\(a\.txt\)/);
    expect(term.screen()).toMatch(/ {2}2 {2}second change {2}\(a\.txt\)/);
    term.type("1\r");
    await term.until((screen) => screen.includes("the conversation goes on from before turn 1 in session"), "the fork");
    expect(await read(project, "a.txt")).toBe("one\n");
    term.type("\x04");
    expect(await term.exited).toBe(0);
  });
});

describe("/diff of a resumed session", () => {
  it("shows what the session changed before this process, from its checkpoints, commands' changes included", async () => {
    const { inTerminal } = await import("../helpers/terminal.js");
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const s = await sim([call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }), call("run_command", { command: "echo by-command > cmd.txt" }), { content: "done" }]);
    const first = await runHel({ args: ["-C", project, "--tools", "search_replace,run_command", "change"], baseUrl: s.url });
    const id = sessionIdOf(first.stderr)!;
    const term = inTerminal(["-C", project, "--resume", id, "--tools", "search_replace,run_command"], s.url, { NO_COLOR: "1" });
    await term.until((screen) => screen.includes("› "), "the prompt");
    term.type("/diff\r");
    await term.until((screen) => screen.includes("cmd.txt") && screen.includes("a.txt"), "the diff");
    expect(term.screen()).toMatch(/\+ ?two/);
    expect(term.screen()).toMatch(/\+ ?by-command/);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  });
});

describe("without git", () => {
  it("checkpoints are off with one warning, and the edit is made", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "one\n");
    const s = await sim([call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" }), call("search_replace", { path: "a.txt", old_text: "two", new_text: "three" }), { content: "done" }]);
    // A PATH with no git on it: hel runs from its own path, and search_replace starts no process.
    const run = await runHel({ args: ["-C", project, "--tools", "search_replace", "change"], baseUrl: s.url, env: { PATH: "/nonexistent" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split("\n").filter((l) => l.includes("file checkpoints are off"))).toEqual(["hel: git is not installed: file checkpoints are off (no /rewind or /undo of files) — install git to have them"]);
    expect(await read(project, "a.txt")).toBe("three\n");
  });
});
