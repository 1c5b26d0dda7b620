// Sessions across runs: a run saves, a later `hel --resume` or `-c` continues it, a bad session is
// refused with exit 2, and `hel sessions` lists, shows and removes them. hel runs in this process as
// the command runs it (helpers/conversation.ts), against the simulator; what needs processes of its own
// (a resume in a new process byte for byte, signals, leases held by a live process, a reader that goes
// away) is test/e2e/resume.test.ts's.
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";

const sim = simulators();

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

describe("resume", () => {
  it("-c continues the latest session; a changed model is said once and applied; a changed system prompt is sent", async () => {
    const s = await sim({ script: [{ content: "one" }, { content: "two" }, { content: "three" }] });
    const project = await tempProject();
    const a = await runHelInProcess({ args: ["-C", project, "first"], baseUrl: s.url });
    const b = await runHelInProcess({ args: ["-C", project, "second"], baseUrl: s.url });
    await writeFile(join(project, "HEL.md"), "New rule.\n");
    const c = await runHelInProcess({ args: ["-C", project, "-c", "--model", "deepseek-v4-pro", "third"], baseUrl: s.url });
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
    const a = await runHelInProcess({ args: ["-C", project, "first"], baseUrl: s.url });
    const id = sessionIdOf(a.stderr)!;
    const snapshotPath = join(project, ".hel", "sessions", id, "snapshot.json");
    const meter1 = JSON.parse(await readFile(snapshotPath, "utf8")).meter;
    expect(meter1).toEqual({ message_count: 2, input_tokens: s.requests[0]!.usage!.prompt_tokens });
    // Resumed with different tools, then answered: the meter describes the new request only.
    await runHelInProcess({ args: ["-C", project, "--resume", id, "--tools", "read_file", "second"], baseUrl: s.url });
    const meter2 = JSON.parse(await readFile(snapshotPath, "utf8")).meter;
    expect(meter2).toEqual({ message_count: 4, input_tokens: s.requests[1]!.usage!.prompt_tokens });
  });

  it("cursors and spill files come back with the session; a cursor on a changed file is refused", async () => {
    const project = await tempProject();
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    await writeFile(join(project, "big.txt"), long);
    const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "big.txt" })] }, { content: "read page one" }] });
    const a = await runHelInProcess({ args: ["-C", project, "read big.txt"], baseUrl: s.url });
    const id = sessionIdOf(a.stderr)!;
    const page = (s.requests[1]!.body as ChatRequest).messages.at(-1)!.content!;
    const cursor = /cursor: (\S+)/.exec(page)?.[1];
    expect(cursor).toBeDefined();

    s.push({ tool_calls: [call("read_file", { cursor })] }, { content: "read page two" });
    await runHelInProcess({ args: ["-C", project, "--resume", id, "go on"], baseUrl: s.url });
    const next = (s.requests[3]!.body as ChatRequest).messages.at(-1)!.content;
    expect(next).toMatch(/^\[#4\] \s*2001\tline 2001$/m);

    await appendFile(join(project, "big.txt"), "more\n");
    s.push({ tool_calls: [call("read_file", { cursor })] }, { content: "refused" });
    await runHelInProcess({ args: ["-C", project, "--resume", id, "again"], baseUrl: s.url });
    expect((s.requests[5]!.body as ChatRequest).messages.at(-1)!.content).toMatch(/^\[#6\] Error: .*changed.*read it again/i);
  });

  it("a spilled result stays readable after a resume", async () => {
    const project = await tempProject();
    await writeFile(join(project, "wide.txt"), Array.from({ length: 40 }, () => "x".repeat(1900)).join("\n") + "\n");
    const s = await sim({
      script: [{ tool_calls: [call("delegate_task", { task: "print" })] }, { tool_calls: [call("read_file", { path: "wide.txt", limit: 40 })] }, { content: "y".repeat(40_000) }, { content: "spilled" }],
    });
    const a = await runHelInProcess({ args: ["-C", project, "--delegate", "task-only", "go"], baseUrl: s.url });
    expect(a.code).toBe(0);
    const id = sessionIdOf(a.stderr)!;
    const spilled = (s.requests[3]!.body as ChatRequest).messages.at(-1)!.content!;
    const spillPath = /(\.hel\/sessions\/\S+\/spill\/\S+\.txt)/.exec(spilled)?.[1];
    expect(spillPath).toBeDefined();
    s.push({ tool_calls: [call("read_file", { path: spillPath, offset: 1, limit: 1 })] }, { content: "ok" });
    await runHelInProcess({ args: ["-C", project, "--resume", id, "read the spill"], baseUrl: s.url });
    expect((s.requests[5]!.body as ChatRequest).messages.at(-1)!.content).toMatch(/y{100}/);
  });
});

describe("what is saved", () => {
  it("nothing is written before the model's first answer; after it, every turn is saved however it ended", async () => {
    const s = await sim({ script: [{ fault: { kind: "status", status: 401 } }] });
    const project = await tempProject();
    const failed = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: s.url });
    expect(failed.code).toBe(1);
    expect(existsSync(join(project, ".hel"))).toBe(false);
    expect(failed.stderr).not.toMatch(/resume with/);

    s.push({ content: "first answer" }, { fault: { kind: "status", status: 400 } });
    const partial = await runHelInProcess({ args: ["-C", project], input: "one\ntwo\n", baseUrl: s.url });
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
    const first = await runHelInProcess({ args: ["-C", project, "--json", "--max-steps", "2", "make a.txt"], baseUrl: s.url });
    expect(first.code).toBe(1);
    const printed = JSON.parse(first.stdout) as { session_id: string; exit_reason: string };
    expect(printed.exit_reason).toBe("max_steps");
    expect(sessionIdOf(first.stderr)).toBe(printed.session_id);
    const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", printed.session_id, "snapshot.json"), "utf8"));
    expect(snapshot.last_turn).toEqual({ exit_reason: "max_steps", error: "stopped after 2 model requests (--max-steps)" });

    s.push({ content: "done" });
    const next = await runHelInProcess({ args: ["-C", project, "-c", "go on"], baseUrl: s.url });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(`hel: session ${printed.session_id}'s last turn was cut short (stopped after 2 model requests (--max-steps)); the next instruction continues from where it stopped`);
    const body = s.requests.at(-1)!.body as ChatRequest;
    expect(body.messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "user"]);
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "[#4] go on" });
  });
});

it("a turn that could not be saved ends the run with exit 1", async () => {
  const s = await sim({ script: [{ content: "answer" }] });
  const project = await tempProject();
  await mkdir(join(project, ".hel"));
  await writeFile(join(project, ".hel", "sessions"), "not a directory");
  const result = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: s.url });
  expect(result.stdout).toBe("answer\n");
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/hel: could not .*session/);
  expect(result.stderr).not.toMatch(/resume with/);
});

it("a project where .hel/ cannot be written is reported before the first request", async () => {
  const s = await sim({ script: [{ content: "answer" }] });
  const project = await tempProject();
  await writeFile(join(project, ".hel"), "not a directory");
  const result = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: s.url });
  expect(result.code).toBe(1);
  expect(s.requests).toHaveLength(0);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(`hel: ${join(project, ".hel")} is not a directory, so hel could not save this session — make it writable, or run hel in a project you can write\n`);
});

describe("bad sessions exit 2 and leave the file untouched", () => {
  async function savedSession() {
    const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "." })] }, { content: "done" }] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "list"], baseUrl: s.url });
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
    const result = await runHelInProcess({ args: ["-C", project, "--resume", id, "again"], baseUrl: url });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(await readFile(path, "utf8")).toBe(bad);
    expect(existsSync(join(project, ".hel", "sessions", id, ".active"))).toBe(false);
  });

  it("--resume and -c in a project with no saved session both refuse, exit 2, and start nothing", async () => {
    const s = await sim({ script: [{ content: "never sent" }] });
    const project = await tempProject();
    const resume = await runHelInProcess({ args: ["-C", project, "--resume", "--", "go on"], baseUrl: s.url });
    const latest = await runHelInProcess({ args: ["-C", project, "-c", "go on"], baseUrl: s.url });
    expect([resume.code, resume.stderr]).toEqual([2, "hel: this project has no saved session to resume — run hel without --resume to start one\n"]);
    expect([latest.code, latest.stderr]).toEqual([2, "hel: this project has no saved session to continue — run hel without -c to start one\n"]);
    expect(s.requests).toHaveLength(0);
    expect(existsSync(join(project, ".hel", "sessions"))).toBe(false);
  });

  it("an unknown id and an ambiguous prefix", async () => {
    const { project, url } = await savedSession();
    const unknown = await runHelInProcess({ args: ["-C", project, "--resume", "zzzz", "again"], baseUrl: url });
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
    const ambiguous = await runHelInProcess({ args: ["-C", project, "--resume", "aaaa", "again"], baseUrl: url });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(ids[0]);
    expect(ambiguous.stderr).toContain(ids[1]);
  });
});

describe("hel sessions", () => {
  it("ls, show (with the subagent's transcript) and rm", async () => {
    const s = await sim({ policy: "h11" });
    const project = await tempProject("h11");
    const run = await runHelInProcess({
      args: ["-C", project, "--delegate", "full", "Read services.ini to find the api port, delegate the edit of deploy/api.yaml with delegate_task, read it back, answer the port."],
      baseUrl: s.url,
    });
    expect(run.code).toBe(0);
    const id = sessionIdOf(run.stderr)!;
    const other = await runHelInProcess({ args: ["-C", project, "--tools", "none", "unrelated"], baseUrl: s.url });
    const otherId = sessionIdOf(other.stderr)!;

    const ls = await runHelInProcess({ args: ["-C", project, "sessions", "ls", "--json"] });
    expect(ls.code).toBe(0);
    const listed = JSON.parse(ls.stdout) as { id: string; turns: number; first_instruction: string }[];
    expect(listed.map((x) => x.id)).toEqual([otherId, id]);
    expect(listed[1]).toMatchObject({ turns: 1, first_instruction: expect.stringMatching(/^Read services.ini/) });
    const lsText = await runHelInProcess({ args: ["-C", project, "sessions", "ls"] });
    expect(lsText.stdout).toContain("Read services.ini");

    const show = await runHelInProcess({ args: ["-C", project, "sessions", "show", id.slice(0, 6)] });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("delegate_task");
    expect(show.stdout).toMatch(/subagent 1 \(full\)/);
    expect(show.stdout).toContain("search_replace");
    expect(existsSync(join(project, ".hel", "sessions", id, "children", "1.json"))).toBe(true);
    const showJson = JSON.parse((await runHelInProcess({ args: ["-C", project, "sessions", "show", id, "--json"] })).stdout);
    expect(showJson.child_transcripts[0]).toMatchObject({ number: 1, mode: "full", exit_reason: "completed" });

    const rmRun = await runHelInProcess({ args: ["-C", project, "sessions", "rm", id] });
    expect(rmRun.code).toBe(0);
    expect(existsSync(join(project, ".hel", "sessions", id))).toBe(false);
    expect(existsSync(join(project, ".hel", "sessions", otherId, "snapshot.json"))).toBe(true);
    expect(await readFile(join(project, "deploy", "api.yaml"), "utf8")).toMatch(/port: 8143/);
  });
});
