// Sessions across processes: a run saves, a later `hel --resume` continues it. The resumed request
// is compared byte for byte with the one an uninterrupted conversation sends.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
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

  it("-c continues the latest session; a changed model is said once and applied; a changed system prompt is sent", async () => {
    const s = await sim({ script: [{ content: "one" }, { content: "two" }, { content: "three" }] });
    const project = await tempProject();
    const a = await runHel({ args: ["-C", project, "first"], baseUrl: s.url });
    const b = await runHel({ args: ["-C", project, "second"], baseUrl: s.url });
    await writeFile(join(project, "HEL.md"), "New rule.\n");
    const c = await runHel({ args: ["-C", project, "-c", "--model", "deepseek-v4-pro", "third"], baseUrl: s.url });
    expect(c.code).toBe(0);
    expect(sessionIdOf(c.stderr)).toBe(sessionIdOf(b.stderr));
    expect(sessionIdOf(a.stderr)).not.toBe(sessionIdOf(b.stderr));
    expect(c.stderr.match(/resuming session \S+ with model deepseek-v4-pro \(was deepseek-flash\)/g)).toHaveLength(1);
    const body = s.requests[2]!.body as ChatRequest;
    expect(body.model).toBe("deepseek-v4-pro");
    expect(body.messages[0]!.content).toContain("New rule.");
    expect(body.messages.slice(1)).toEqual([
      { role: "user", content: "[#1] second" },
      { role: "assistant", content: "two", reasoning_content: expect.any(String) },
      { role: "user", content: "[#2] third" },
    ]);
  });

  it("the meter is kept only when nothing that affects input tokens changed", async () => {
    const s = await sim({ script: [{ content: "one" }, { content: "two" }, { content: "three" }] });
    const project = await tempProject();
    const a = await runHel({ args: ["-C", project, "first"], baseUrl: s.url });
    const id = sessionIdOf(a.stderr)!;
    const snapshotPath = join(project, ".hel", "sessions", id, "snapshot.json");
    const meter1 = JSON.parse(await readFile(snapshotPath, "utf8")).meter;
    expect(meter1).toEqual({ message_count: 2, input_tokens: s.requests[0]!.usage!.prompt_tokens });
    // Resumed with different tools, then answered: the meter describes the new request only.
    await runHel({ args: ["-C", project, "--resume", id, "--tools", "read_file", "second"], baseUrl: s.url });
    const meter2 = JSON.parse(await readFile(snapshotPath, "utf8")).meter;
    expect(meter2).toEqual({ message_count: 4, input_tokens: s.requests[1]!.usage!.prompt_tokens });
  });

  it("cursors and spill files come back with the session; a cursor on a changed file is refused", async () => {
    const project = await tempProject();
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    await writeFile(join(project, "big.txt"), long);
    const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "big.txt" })] }, { content: "read page one" }] });
    const a = await runHel({ args: ["-C", project, "read big.txt"], baseUrl: s.url });
    const id = sessionIdOf(a.stderr)!;
    const page = (s.requests[1]!.body as ChatRequest).messages.at(-1)!.content!;
    const cursor = /cursor: (\S+)/.exec(page)?.[1];
    expect(cursor).toBeDefined();

    s.push({ tool_calls: [call("read_file", { cursor })] }, { content: "read page two" });
    await runHel({ args: ["-C", project, "--resume", id, "go on"], baseUrl: s.url });
    const next = (s.requests[3]!.body as ChatRequest).messages.at(-1)!.content;
    expect(next).toMatch(/^\[#4\] \s*2001\tline 2001$/m);

    await appendFile(join(project, "big.txt"), "more\n");
    s.push({ tool_calls: [call("read_file", { cursor })] }, { content: "refused" });
    await runHel({ args: ["-C", project, "--resume", id, "again"], baseUrl: s.url });
    expect((s.requests[5]!.body as ChatRequest).messages.at(-1)!.content).toMatch(/^\[#6\] Error: .*changed.*read it again/i);
  });

  it("a spilled result stays readable after a resume", async () => {
    const project = await tempProject();
    await writeFile(join(project, "wide.txt"), Array.from({ length: 40 }, () => "x".repeat(1900)).join("\n") + "\n");
    const s = await sim({
      script: [{ tool_calls: [call("delegate_task", { task: "print" })] }, { tool_calls: [call("read_file", { path: "wide.txt", limit: 40 })] }, { content: "y".repeat(40_000) }, { content: "spilled" }],
    });
    const a = await runHel({ args: ["-C", project, "--delegate", "task-only", "go"], baseUrl: s.url });
    expect(a.code).toBe(0);
    const id = sessionIdOf(a.stderr)!;
    const spilled = (s.requests[3]!.body as ChatRequest).messages.at(-1)!.content!;
    const spillPath = /(\.hel\/sessions\/\S+\/spill\/\S+\.txt)/.exec(spilled)?.[1];
    expect(spillPath).toBeDefined();
    s.push({ tool_calls: [call("read_file", { path: spillPath, offset: 1, limit: 1 })] }, { content: "ok" });
    await runHel({ args: ["-C", project, "--resume", id, "read the spill"], baseUrl: s.url });
    expect((s.requests[5]!.body as ChatRequest).messages.at(-1)!.content).toMatch(/y{100}/);
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
  it("nothing is written before the model's first answer; after it, every turn is saved however it ended", async () => {
    const s = await sim({ script: [{ fault: { kind: "status", status: 401 } }] });
    const project = await tempProject();
    const failed = await runHel({ args: ["-C", project, "hi"], baseUrl: s.url });
    expect(failed.code).toBe(1);
    expect(existsSync(join(project, ".hel"))).toBe(false);
    expect(failed.stderr).not.toMatch(/resume with/);

    s.push({ content: "first answer" }, { fault: { kind: "status", status: 400 } });
    const partial = await runHel({ args: ["-C", project], input: "one\ntwo\n", baseUrl: s.url });
    expect(partial.code).toBe(1);
    const id = sessionIdOf(partial.stderr)!;
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", id, "snapshot.json"), "utf8"));
    expect(snapshot.messages.slice(1)).toEqual([
      { role: "user", content: "[#1] one" },
      { role: "assistant", content: "first answer", reasoning_content: expect.any(String) },
      { role: "user", content: "[#2] two" },
    ]);
    expect(snapshot.last_turn).toEqual({ exit_reason: "error", error: expect.stringMatching(/^DeepSeek refused the request \(400/) });
  });

  it("a first instruction cut short by max steps after an edit is saved, and -c continues it", async () => {
    const s = await sim({
      script: [{ tool_calls: [call("search_replace", { path: "a.txt", old_text: "", new_text: "made\n" })] }, { tool_calls: [call("read_file", { path: "a.txt" })] }],
    });
    const project = await tempProject();
    const first = await runHel({ args: ["-C", project, "--json", "--max-steps", "2", "make a.txt"], baseUrl: s.url });
    expect(first.code).toBe(1);
    const printed = JSON.parse(first.stdout) as { session_id: string; exit_reason: string };
    expect(printed.exit_reason).toBe("max_steps");
    expect(sessionIdOf(first.stderr)).toBe(printed.session_id);
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", printed.session_id, "snapshot.json"), "utf8"));
    expect(snapshot.last_turn).toEqual({ exit_reason: "max_steps", error: "stopped after 2 model requests (--max-steps)" });

    s.push({ content: "done" });
    const next = await runHel({ args: ["-C", project, "-c", "go on"], baseUrl: s.url });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(`hel: session ${printed.session_id}'s last turn was cut short (stopped after 2 model requests (--max-steps)); the next instruction continues from where it stopped`);
    const body = s.requests.at(-1)!.body as ChatRequest;
    expect(body.messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "user"]);
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "[#4] go on" });
  });

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

it("a turn that could not be saved ends the run with exit 1", async () => {
  const s = await sim({ script: [{ content: "answer" }] });
  const project = await tempProject();
  await mkdir(join(project, ".hel"));
  await writeFile(join(project, ".hel", "sessions"), "not a directory");
  const result = await runHel({ args: ["-C", project, "hi"], baseUrl: s.url });
  expect(result.stdout).toBe("answer\n");
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/hel: could not .*session/);
  expect(result.stderr).not.toMatch(/resume with/);
});

it("a project where .hel/ cannot be written is reported before the first request", async () => {
  const s = await sim({ script: [{ content: "answer" }] });
  const project = await tempProject();
  await writeFile(join(project, ".hel"), "not a directory");
  const result = await runHel({ args: ["-C", project, "hi"], baseUrl: s.url });
  expect(result.code).toBe(1);
  expect(s.requests).toHaveLength(0);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(`hel: ${join(project, ".hel")} is not a directory, so hel could not save this session — make it writable, or run hel in a project you can write\n`);
});

describe("bad sessions exit 2 and leave the file untouched", () => {
  async function savedSession() {
    const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "." })] }, { content: "done" }] });
    const project = await tempProject();
    const result = await runHel({ args: ["-C", project, "list"], baseUrl: s.url });
    const id = sessionIdOf(result.stderr)!;
    return { project, id, path: join(project, ".hel", "sessions", id, "snapshot.json"), url: s.url };
  }

  const corruptions: [string, (text: string, id: string) => string, RegExp][] = [
    ["invalid JSON", (t) => t.slice(0, t.length / 2), /not valid JSON|invalid JSON/i],
    ["another schema_version", (t) => t.replace('"schema_version":2', '"schema_version":3'), /schema_version 3/],
    [
      "missing fields",
      (t) => {
        const o = JSON.parse(t);
        delete o.messages;
        return JSON.stringify(o);
      },
      /messages/,
    ],
    [
      "a tool call without its result",
      (t) => {
        const o = JSON.parse(t);
        o.messages.splice(3, 1);
        return JSON.stringify(o);
      },
      /tool call|result/i,
    ],
    [
      "another directory",
      (t) => {
        const o = JSON.parse(t);
        o.cwd = "/somewhere/else";
        return JSON.stringify(o);
      },
      /\/somewhere\/else/,
    ],
  ];

  it.each(corruptions)("%s", async (_name, corrupt, message) => {
    const { project, id, path, url } = await savedSession();
    const bad = corrupt(await readFile(path, "utf8"), id);
    await writeFile(path, bad);
    const result = await runHel({ args: ["-C", project, "--resume", id, "again"], baseUrl: url });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(await readFile(path, "utf8")).toBe(bad);
    expect(existsSync(join(project, ".hel", "sessions", id, ".active"))).toBe(false);
  });

  it("--resume and -c in a project with no saved session both refuse, exit 2, and start nothing", async () => {
    const s = await sim({ script: [{ content: "never sent" }] });
    const project = await tempProject();
    const resume = await runHel({ args: ["-C", project, "--resume", "--", "go on"], baseUrl: s.url });
    const latest = await runHel({ args: ["-C", project, "-c", "go on"], baseUrl: s.url });
    expect([resume.code, resume.stderr]).toEqual([2, "hel: this project has no saved session to resume — run hel without --resume to start one\n"]);
    expect([latest.code, latest.stderr]).toEqual([2, "hel: this project has no saved session to continue — run hel without -c to start one\n"]);
    expect(s.requests).toHaveLength(0);
    expect(existsSync(join(project, ".hel", "sessions"))).toBe(false);
  });

  it("an unknown id and an ambiguous prefix", async () => {
    const { project, url } = await savedSession();
    const unknown = await runHel({ args: ["-C", project, "--resume", "zzzz", "again"], baseUrl: url });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no session zzzz .*hel sessions ls/);
    const ids = ["aaaa1111-0000-4000-8000-000000000000", "aaaa2222-0000-4000-8000-000000000000"];
    const [base] = await readdir(join(project, ".hel", "sessions"));
    for (const id of ids) {
      const text = await readFile(join(project, ".hel", "sessions", base!, "snapshot.json"), "utf8");
      await rm(join(project, ".hel", "sessions", id), { recursive: true, force: true });
      await import("node:fs/promises").then((fs) => fs.mkdir(join(project, ".hel", "sessions", id), { recursive: true }));
      await writeFile(join(project, ".hel", "sessions", id, "snapshot.json"), text.replaceAll(base!, id));
    }
    const ambiguous = await runHel({ args: ["-C", project, "--resume", "aaaa", "again"], baseUrl: url });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(ids[0]);
    expect(ambiguous.stderr).toContain(ids[1]);
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

describe("hel sessions", () => {
  it("ls, show (with the subagent's transcript) and rm", async () => {
    const s = await sim({ policy: "h11" });
    const project = await tempProject("h11");
    const run = await runHel({
      args: ["-C", project, "--delegate", "full", "Read services.ini to find the api port, delegate the edit of deploy/api.yaml with delegate_task, read it back, answer the port."],
      baseUrl: s.url,
    });
    expect(run.code).toBe(0);
    const id = sessionIdOf(run.stderr)!;
    const other = await runHel({ args: ["-C", project, "--tools", "none", "unrelated"], baseUrl: s.url });
    const otherId = sessionIdOf(other.stderr)!;

    const ls = await runHel({ args: ["-C", project, "sessions", "ls", "--json"] });
    expect(ls.code).toBe(0);
    const listed = JSON.parse(ls.stdout) as { id: string; turns: number; first_instruction: string }[];
    expect(listed.map((x) => x.id)).toEqual([otherId, id]);
    expect(listed[1]).toMatchObject({ turns: 1, first_instruction: expect.stringMatching(/^Read services.ini/) });
    const lsText = await runHel({ args: ["-C", project, "sessions", "ls"] });
    expect(lsText.stdout).toContain("Read services.ini");

    const show = await runHel({ args: ["-C", project, "sessions", "show", id.slice(0, 6)] });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("delegate_task");
    expect(show.stdout).toMatch(/subagent 1 \(full\)/);
    expect(show.stdout).toContain("search_replace");
    expect(existsSync(join(project, ".hel", "sessions", id, "children", "1.json"))).toBe(true);
    const showJson = JSON.parse((await runHel({ args: ["-C", project, "sessions", "show", id, "--json"] })).stdout);
    expect(showJson.child_transcripts[0]).toMatchObject({ number: 1, mode: "full", exit_reason: "completed" });

    const rmRun = await runHel({ args: ["-C", project, "sessions", "rm", id] });
    expect(rmRun.code).toBe(0);
    expect(existsSync(join(project, ".hel", "sessions", id))).toBe(false);
    expect(existsSync(join(project, ".hel", "sessions", otherId, "snapshot.json"))).toBe(true);
    expect(await readFile(join(project, "deploy", "api.yaml"), "utf8")).toMatch(/port: 8143/);
  });
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
