// Sessions across processes: a run saves, a later `hel --resume` in a new process continues it, byte
// for byte what an uninterrupted conversation sends; signals end a run and release its lease, a live
// process holds its session against others, and output into a closed pipe ends nothing badly. The rest
// of resuming runs in this process, in test/cli/resume.test.ts.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../src/wire/messages.js";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import { collect, HEL, helEnv, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";
import { makeSnapshot } from "../helpers/session-fixtures.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";

const sim = simulators();

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

describe("resume", () => {
  it("the first request after a resume is byte for byte the one the conversation sends without stopping", async () => {
    const script = () => [
      { reasoning: "look", tool_calls: [{ ...call("read_file", { path: "notes.txt" }), id: "call_00_fixedForComparison00" }] },
      { content: "The code word is PLUM." },
      { content: "You asked for the code word: PLUM." },
    ];
    const project = await tempProject();
    await writeFile(join(project, "notes.txt"), "code word: PLUM\n");

    // Without stopping: two instructions in one process.
    const continuous = await sim({ script: script() });
    const one = await runHel({ args: ["-C", project], input: "find the code word\nwhat did I ask?\n", baseUrl: continuous.url });
    expect(one.code).toBe(0);

    // Stopping in between: the second instruction in a new process, with --resume.
    const stopped = await sim({ script: script() });
    const first = await runHel({ args: ["-C", project, "find the code word"], baseUrl: stopped.url });
    const id = sessionIdOf(first.stderr)!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await runHel({ args: ["-C", project, "--resume", id.slice(0, 8), "what did I ask?"], baseUrl: stopped.url });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("You asked for the code word: PLUM.\n");
    expect(second.stderr).not.toMatch(/resuming session .* with/);

    const uninterrupted = JSON.stringify(continuous.requests[2]!.body);
    const resumed = JSON.stringify(stopped.requests[2]!.body);
    expect(resumed).toBe(uninterrupted);
    const body = stopped.requests[2]!.body as ChatRequest;
    expect(body.messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "[#3] what did I ask?" });
    // The resumed prefix is in DeepSeek's cache already: only the new message misses.
    const usage = stopped.requests[2]!.usage!;
    expect(usage.prompt_cache_hit_tokens / usage.prompt_tokens).toBeGreaterThan(0.9);
    expect(usage.prompt_cache_hit_tokens).toBe(continuous.requests[2]!.usage!.prompt_cache_hit_tokens);
    // New turns are saved into the same session.
    expect(sessionIdOf(second.stderr)).toBe(id);
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", id, "snapshot.json"), "utf8"));
    expect(snapshot.messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(2);
    expect(await readFile(join(project, ".hel", ".gitignore"), "utf8")).toBe("*\n");
  });
});

it("a spill before the first answer leases the session, so it cannot be deleted under the running hel", async () => {
  const s = await sim({
    script: [{ tool_calls: [call("delegate_task", { task: "print" })] }, { content: "y".repeat(40_000) }, { faults: [{ kind: "delay", ms: 20_000 }], reply: { content: "late" } }],
  });
  const project = await tempProject();
  const child = spawn(process.execPath, [HEL, "-C", project, "--delegate", "task-only", "go"], { env: helEnv(s.url), stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(child);
  await waitFor(() => s.requests.length === 3, "the request after the spill");
  const [id] = await readdir(join(project, ".hel", "sessions"));
  expect((await readdir(join(project, ".hel", "sessions", id!, "spill"))).length).toBe(1);
  expect(existsSync(join(project, ".hel", "sessions", id!, "snapshot.json"))).toBe(false);
  const rmRun = await runHel({ args: ["-C", project, "sessions", "rm", id!] });
  expect(rmRun.code).toBe(3);
  expect(existsSync(join(project, ".hel", "sessions", id!, "spill"))).toBe(true);
  child.kill("SIGTERM");
  expect((await done).code).toBe(1);
  expect(existsSync(join(project, ".hel", "sessions", id!, ".active"))).toBe(false);
});

describe("what is saved", () => {
  it("Ctrl-C in a one-shot run after a tool call saves the turn, prints interrupted and exits 130", async () => {
    const s = await sim({
      script: [{ tool_calls: [call("read_file", { path: "." })] }, { faults: [{ kind: "stall", ms: 20_000 }], reply: { content: "late" } }],
    });
    const project = await tempProject();
    const child = spawn(process.execPath, [HEL, "-C", project, "look"], { env: helEnv(s.url), stdio: ["pipe", "pipe", "pipe"] });
    const done = collect(child);
    await waitFor(() => s.requests[1]?.status === 200, "the second request's stalled stream");
    child.kill("SIGINT");
    const result = await done;
    expect(result.code).toBe(130);
    const id = sessionIdOf(result.stderr)!;
    expect(result.stderr).toMatch(new RegExp(`\nhel: interrupted — the turn so far is saved in session ${id}; resume with: hel --resume ${id} -C ${project}\n$`));
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", id, "snapshot.json"), "utf8"));
    expect(snapshot.messages.slice(1).map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(snapshot.last_turn).toEqual({ exit_reason: "aborted" });
  });

  it("a failed save warns, keeps the conversation, and the next turn saves it all", async () => {
    const s = await sim({ script: [{ content: "a1" }, { content: "a2" }] });
    const project = await tempProject();
    // .hel/ itself can be written, so the run starts; its sessions folder cannot be made.
    await mkdir(join(project, ".hel"));
    await writeFile(join(project, ".hel", "sessions"), "not a directory");
    const child = spawn(process.execPath, [HEL, "-C", project], { env: helEnv(s.url), stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    let stdout = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stdin!.write("one\n");
    await waitFor(() => stdout.includes("a1"), "the first answer");
    await waitFor(
      () => /hel: could not .*session .* kept in memory and saved after the next turn/.test(stderr),
      () => `the warning that the save failed; stderr so far: ${stderr}`,
    );
    await rm(join(project, ".hel", "sessions"));
    child.stdin!.end("two\n");
    const code = await new Promise((r) => child.on("close", r));
    expect(code).toBe(0);
    const id = sessionIdOf(stderr)!;
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", id, "snapshot.json"), "utf8"));
    expect(snapshot.messages.filter((m: { role: string }) => m.role !== "system").map((m: { content: string }) => m.content)).toEqual(["[#1] one", "a1", "[#2] two", "a2"]);
  });
});

/** A hel process that has answered "hello" and saved, its stdin still open: it holds its session. */
async function liveSession() {
  const s = await sim({ policy: "echo" });
  const project = await tempProject();
  const first = spawn(process.execPath, [HEL, "-C", project], { env: helEnv(s.url), stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(first, null);
  first.stdin!.write("hello\n");
  const sessions = join(project, ".hel", "sessions");
  const saved = async () => existsSync(sessions) && (await readdir(sessions)).some((id) => existsSync(join(sessions, id, "snapshot.json")));
  await waitFor(saved, "the first snapshot");
  const [id] = await readdir(sessions);
  return { s, project, first, done, sessions, id: id! };
}

describe("leases", () => {
  it("a second process is refused while the first holds the session; rm too; both work after it exits", async () => {
    const { s, project, first, done, sessions, id } = await liveSession();
    const second = await runHel({ args: ["-C", project, "--resume", id, "hi"], baseUrl: s.url });
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(new RegExp(`^hel: session ${id} is in use by another hel process — [^\n]+\n$`));
    const rmWhileUsed = await runHel({ args: ["-C", project, "sessions", "rm", id] });
    expect(rmWhileUsed.code).toBe(3);
    expect(existsSync(join(sessions, id, "snapshot.json"))).toBe(true);

    first.stdin!.end();
    expect((await done).code).toBe(0);
    const third = await runHel({ args: ["-C", project, "--resume", id, "again"], baseUrl: s.url });
    expect(third.code).toBe(0);
    expect(third.stdout).toBe("echo: again\n");
  });
});

describe("signals", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s between turns releases the lease at once", async (signal) => {
    const { s, project, first, done, sessions, id } = await liveSession();
    expect(existsSync(join(sessions, id, ".active"))).toBe(true);
    first.kill(signal);
    await done;
    expect(existsSync(join(sessions, id, ".active"))).toBe(false);
    // stdin mode after a resume: each line a turn of the resumed conversation.
    const next = await runHel({ args: ["-C", project, "--resume", id], input: "again\nand again\n", baseUrl: s.url });
    expect(next.code).toBe(0);
    expect(next.stdout).toBe("echo: again\necho: and again\n");
    const last = s.requests.at(-1)!.body as ChatRequest;
    expect(last.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["[#1] hello", "[#2] again", "[#3] and again"]);
  });
});

it("SIGTERM during a request aborts it, ends the run and releases the lease; the snapshot keeps the turn cut short", async () => {
  const { s, first, done, sessions, id } = await liveSession();
  s.push({ faults: [{ kind: "delay", ms: 20_000 }], reply: { content: "too late" } });
  const before = s.requests.length;
  first.stdin!.write("slow one\n");
  await waitFor(() => s.requests.length > before, "the slow request");
  const started = Date.now();
  first.kill("SIGTERM");
  const result = await done;
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(result.code).toBe(1);
  expect(existsSync(join(sessions, id, ".active"))).toBe(false);
  const snapshot = JSON.parse(await readFile(join(sessions, id, "snapshot.json"), "utf8"));
  expect(snapshot.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content)).toEqual(["[#1] hello", "[#2] slow one"]);
  expect(snapshot.last_turn).toEqual({ exit_reason: "aborted" });
});

it("a lease lost while running stops the saving, and hel says so", { timeout: 40_000 }, async () => {
  const { first, done, sessions, id } = await liveSession();
  let stderr = "";
  first.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  // Another party takes the lease away; the holder notices at its next refresh (every 7.5 s).
  await rm(join(sessions, id, ".active"), { recursive: true, force: true });
  await waitFor(() => stderr.includes("lost the lease"), "hel to notice the lost lease", { timeoutMs: 30_000 });
  first.stdin!.end("second\n");
  const result = await done;
  // The second answer exists nowhere but in that process's memory: the run failed to keep it.
  expect(result.code).toBe(1);
  expect(stderr).toMatch(new RegExp(`hel: lost the lease on session ${id} — .*stops saving`));
  expect(stderr).toMatch(/resume with: hel --resume \S+ -C \S+ \(without the last turn, which could not be saved\)/);
  const snapshot = JSON.parse(await readFile(join(sessions, id, "snapshot.json"), "utf8"));
  expect(snapshot.messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content)).toEqual(["[#1] hello"]);
  expect(snapshot.last_turn).toEqual({ exit_reason: "completed" });
});

describe("output into a pipe", () => {
  it("a reader that closes early ends nothing badly: no EPIPE, no stack, exit 0", async () => {
    // 3,000 exchanges: a transcript of a few hundred KB, well over a pipe's 64 KB buffer.
    const project = await tempProject();
    const id = "0a1b2c3d-0000-4000-8000-000000000001";
    const snapshot = makeSnapshot(project, id);
    for (let i = 0; i < 3_000; i++) snapshot.messages.push({ role: "user", content: `instruction ${i}` }, { role: "assistant", content: `answer ${i}` });
    await saveSnapshot(project, snapshot);
    const child = spawn(process.execPath, [HEL, "-C", project, "sessions", "show", id], { env: helEnv(undefined), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // Read one chunk, then go away, as `| head -1` does.
    await new Promise<void>((done) => child.stdout.once("data", () => done()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
