// The user's hooks in whole conversations opened in this process against the simulator, each hook a
// real script run as hel runs it: a formatter after an edit, a blocker whose stderr is the call's
// result, a Stop hook that makes the agent go on (three times at most), a hook past its timeout,
// escape sequences cleaned, context from SessionStart and UserPromptSubmit in the request, a blocked
// instruction never sent, PreCompact's payload, a child's payload naming it, a project's hooks that
// wait for trust, and an environment without the key.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { openTestConversation, runInProcess } from "../helpers/conversation.js";
import { running } from "../helpers/processes.js";
import { tempProject } from "../helpers/temp-project.js";
import { simulators } from "../helpers/simulators.js";

const sim = simulators();

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const body = (s: Simulator, i: number) => s.requests[i]!.body as ChatRequest;

/** A node script in a folder of its own (outside the project), as the command that runs it. */
async function script(text: string): Promise<string> {
  const file = join(await tempProject(), "hook.mjs");
  await writeFile(file, `import { readFileSync, writeFileSync, appendFileSync } from "node:fs";\nconst input = JSON.parse(readFileSync(0, "utf8"));\n${text}\n`);
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`;
}

/** A hook that appends its payload to a log, then runs `then`; and the log's payloads. */
async function logging(then = ""): Promise<{ command: string; payloads: () => Promise<Record<string, unknown>[]> }> {
  const log = join(await tempProject(), "payloads.jsonl");
  const command = await script(`appendFileSync(${JSON.stringify(log)}, JSON.stringify(input) + "\\n");\n${then}`);
  const payloads = async () =>
    (await readFile(log, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { command, payloads };
}

async function projectWith(hooks: object): Promise<string> {
  const dir = await tempProject();
  await mkdir(join(dir, ".hel"));
  await writeFile(join(dir, ".hel", "config.json"), JSON.stringify({ hooks }));
  return dir;
}

it("a formatter after an edit: PostToolUse rewrites the file, and the next read sees it; the user's own hooks need no trust", async () => {
  const dir = await tempProject();
  await writeFile(join(dir, "a.txt"), "hello world\n");
  const home = await tempProject();
  const format = await script(`const path = ${JSON.stringify(dir)} + "/" + input.tool_input.path;\nwriteFileSync(path, readFileSync(path, "utf8").toUpperCase());`);
  await mkdir(join(home, "hel"));
  await writeFile(join(home, "hel", "config.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "search_replace", command: format }] } }));
  const s = await sim({ script: [{ tool_calls: [call("search_replace", { path: "a.txt", old_text: "world", new_text: "there" })] }, { tool_calls: [call("read_file", { path: "a.txt" })] }, { content: "done" }] });
  const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "formatted?"], baseUrl: s.url, env: { XDG_CONFIG_HOME: home } });
  expect(run.code).toBe(0);
  expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("HELLO THERE\n");
  const read = body(s, 2).messages.at(-1)!;
  expect(read.role).toBe("tool");
  expect(read.content).toContain("HELLO THERE");
  expect(run.stderr).not.toContain("hook");
});

it("a blocker: exit 2 keeps the call from running and its stderr is the result; its payload is the call, its environment has no key, and the run is in --json-events and --record", async () => {
  const env = join(await tempProject(), "env.json");
  const { command, payloads } = await logging(`writeFileSync(${JSON.stringify(env)}, JSON.stringify(process.env));\nprocess.stderr.write("no commands in this project\\n");\nprocess.exit(2);`);
  const dir = await projectWith({ PreToolUse: [{ matcher: "run_command|grep", command }] });
  const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "missing.txt" }), call("run_command", { command: "touch made" })] }, { content: "ok" }] });
  const record = await tempProject();
  const hel = await openTestConversation({ sim: s, args: ["-C", dir, "--trust", "--effort", "none", "--json-events", "--record", record], env: { SOME_SECRET_TOKEN: "tok-0123456789" } });
  await hel.instruct("go");
  await hel.close();
  const results = body(s, 1).messages.slice(-2);
  expect(results[1]).toEqual({ role: "tool", tool_call_id: expect.any(String), content: "[#3] Blocked by a PreToolUse hook: no commands in this project" });
  expect(results[0]!.content).not.toContain("Blocked");
  await expect(readFile(join(dir, "made"))).rejects.toThrow();
  expect(await payloads()).toEqual([{ session_id: hel.conversation.session.id, cwd: dir, hook_event_name: "PreToolUse", tool_name: "run_command", tool_input: { command: "touch made" } }]);
  const seen = JSON.parse(await readFile(env, "utf8"));
  expect(seen).not.toHaveProperty("DEEPSEEK_API_KEY");
  expect(seen).not.toHaveProperty("SOME_SECRET_TOKEN");
  expect(seen.HEL_PROJECT_DIR).toBe(dir);
  expect(hel.stderr()).toContain('↯ the PreToolUse hook "');
  expect(hel.stderr()).toContain(" blocked the call: no commands in this project\n");
  const hookEvents = hel
    .stdout()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((e) => e.type === "hook");
  expect(hookEvents).toEqual([{ type: "hook", agent: "parent", event: "PreToolUse", command, exit_code: 2, timed_out: false, stderr: "no commands in this project" }]);
  expect(JSON.parse(await readFile(join(record, "record.json"), "utf8")).hooks).toEqual([{ agent: "parent", event: "PreToolUse", command, exit_code: 2, timed_out: false }]);
});

it("a Stop hook that exits 2 makes the agent go on with its reason, three times a turn at most", async () => {
  const { command, payloads } = await logging(`process.stderr.write("the tests still fail");\nprocess.exit(2);`);
  const dir = await projectWith({ Stop: [{ command }] });
  const s = await sim({ script: [{ content: "one" }, { content: "two" }, { content: "three" }, { content: "four" }] });
  const hel = await openTestConversation({ sim: s, args: ["-C", dir, "--trust", "--effort", "none"] });
  const outcome = await hel.instruct("fix it");
  await hel.close();
  expect(outcome).toMatchObject({ exitReason: "completed", answer: "four" });
  expect(s.requests).toHaveLength(4);
  expect(body(s, 1).messages.slice(1)).toEqual([
    { role: "user", content: "[#1] fix it" },
    { role: "assistant", content: "one" },
    { role: "user", content: "[#2] [Stop hook]\nthe tests still fail" },
  ]);
  expect((await payloads()).map((p) => [p.hook_event_name, p.stop_hook_active])).toEqual([
    ["Stop", false],
    ["Stop", true],
    ["Stop", true],
  ]);
});

it("a hook past its timeout is ended with its whole group, says so once, and the turn goes on", async () => {
  const dir = await projectWith({ PreToolUse: [{ command: "sleep 30.0713 & wait", timeout_s: 0.5 }] });
  await writeFile(join(dir, "a.txt"), "alpha\n");
  const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "a.txt" })] }, { content: "read it" }] });
  const run = await runInProcess({ args: ["-C", dir, "--trust", "--effort", "none", "read a.txt"], baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(body(s, 1).messages.at(-1)!.content).toContain("alpha");
  expect(run.stderr.match(/ran past its timeout/g)).toHaveLength(1);
  expect(run.stderr).toMatch(/hel: the PreToolUse hook ".*" ran past its timeout and was ended — the run goes on\n/);
  // Gone, or a zombie no init reaped: either way it runs nothing.
  expect(running("sleep 30.0713")).toEqual([]);
});

it("UserPromptSubmit and SessionStart: what they print opens the instruction's message, cleaned of escape sequences; the system prompt is untouched", async () => {
  const { command: start, payloads: started } = await logging(`process.stdout.write("on branch \\x1b[32mmain\\x1b[0m\\n");`);
  const { command: submit, payloads: submitted } = await logging(`process.stdout.write("\\x1b]0;owned\\x07today is \\x1b[1mTuesday\\x1b[0m");`);
  const failing = await script(`process.stdout.write("not context");\nprocess.stderr.write("note \\x1b[2J\\x1b[31mred\\x1b[0m");\nprocess.exit(1);`);
  const dir = await projectWith({ SessionStart: [{ command: start }], UserPromptSubmit: [{ command: submit }, { command: failing }] });
  const s = await sim({ script: [{ content: "a" }, { content: "b" }, { content: "c" }] });
  const hel = await openTestConversation({ sim: s, args: ["-C", dir, "--trust", "--effort", "none"] });
  await hel.instruct("first");
  await hel.instruct("second");
  await hel.close();
  const plain = await runInProcess({ args: ["-C", dir, "--effort", "none", "first"], baseUrl: s.url });
  expect(plain.stderr).toContain("ignored this project's hooks");
  expect(body(s, 0).messages).toEqual([body(s, 2).messages[0], { role: "user", content: "[#1] [SessionStart hook]\non branch main\n\n[UserPromptSubmit hook]\ntoday is Tuesday\n\nfirst" }]);
  expect(body(s, 1).messages.at(-1)).toEqual({ role: "user", content: "[#2] [UserPromptSubmit hook]\ntoday is Tuesday\n\nsecond" });
  expect(await started()).toEqual([{ session_id: hel.conversation.session.id, cwd: dir, hook_event_name: "SessionStart", source: "startup" }]);
  expect((await submitted()).map((p) => p.prompt)).toEqual(["first", "second"]);
  // An exit that is neither 0 nor 2 is a warning, its stderr cleaned; its stdout is not context.
  expect(hel.stderr()).not.toContain("\x1b");
  expect(hel.stderr().match(/hel: the UserPromptSubmit hook ".*" failed \(exit 1\): note red — the run goes on\n/g)).toHaveLength(2);
});

it("UserPromptSubmit exit 2: the instruction is not sent, and the hook's reason is shown", async () => {
  const { command } = await logging(`process.stderr.write("no deploys on Friday");\nprocess.exit(2);`);
  const dir = await projectWith({ UserPromptSubmit: [{ command }] });
  const s = await sim({ script: [{ content: "never" }] });
  const run = await runInProcess({ args: ["-C", dir, "--trust", "deploy"], baseUrl: s.url });
  expect(s.requests).toHaveLength(0);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/↯ the UserPromptSubmit hook ".*" blocked the instruction, which was not sent: no deploys on Friday\n/);
});

it("stdin's lines: a UserPromptSubmit hook that blocks the second sends the first and the third; the blocked one is on stderr, not in --json, and the run succeeds", async () => {
  const { command, payloads } = await logging(`if (input.prompt === "deploy") { process.stderr.write("no deploys on Friday"); process.exit(2); }`);
  const dir = await projectWith({ UserPromptSubmit: [{ command }] });
  const s = await sim({ script: [{ content: "first done" }, { content: "third done" }] });
  const run = await runInProcess({ args: ["-C", dir, "--trust", "--json", "--effort", "none"], input: "first\ndeploy\nthird\n", baseUrl: s.url });
  expect((await payloads()).map((p) => p.prompt)).toEqual(["first", "deploy", "third"]);
  expect(s.requests).toHaveLength(2);
  expect(body(s, 0).messages.at(-1)).toEqual({ role: "user", content: "[#1] first" });
  expect(body(s, 1).messages.slice(-3)).toEqual([
    { role: "user", content: "[#1] first" },
    { role: "assistant", content: "first done" },
    { role: "user", content: "[#2] third" },
  ]);
  expect(run.stderr.match(/↯ the UserPromptSubmit hook ".*" blocked the instruction, which was not sent: no deploys on Friday\n/g)).toHaveLength(1);
  // One object per instruction sent: the blocked one was not, so it has none.
  const objects = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(objects.map((o) => [o.answer, o.exit_reason])).toEqual([
    ["first done", "completed"],
    ["third done", "completed"],
  ]);
  expect(run.code).toBe(0);
});

it("PreCompact runs before an automatic compaction, with its trigger", async () => {
  const { command, payloads } = await logging();
  const dir = await projectWith({ PreCompact: [{ command }] });
  for (let n = 1; n <= 2; n++) await writeFile(join(dir, `notes${n}.txt`), Array.from({ length: 120 }, (_, j) => `note ${n} line ${j}: the quick brown fox jumps over the lazy dog`).join("\n"));
  const read = (path: string) => ({ tool_calls: [call("read_file", { path })] });
  const s = await sim({ script: [read("notes1.txt"), { content: "read" }, read("notes2.txt"), { content: "## Goal\nGo on." }, { content: "read too" }] });
  const run = await runInProcess({ args: ["-C", dir, "--trust", "--tools", "read_file", "--effort", "none", "--compact-at", "6000"], input: "read notes1.txt\nread notes2.txt\n", baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(s.requests).toHaveLength(5);
  const [payload] = await payloads();
  expect(payload).toEqual({ session_id: expect.any(String), cwd: dir, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" });
  expect(run.stderr).toContain(`--resume ${payload!.session_id as string}`);
});

it("PreCompact runs before a compaction the user asked for, with its trigger and focus", async () => {
  const { command, payloads } = await logging();
  const dir = await projectWith({ PreCompact: [{ command }] });
  await writeFile(join(dir, "notes.txt"), Array.from({ length: 200 }, (_, j) => `line ${j}: the quick brown fox jumps over the lazy dog`).join("\n"));
  const s = await sim({ script: [{ tool_calls: [call("read_file", { path: "notes.txt" })] }, { content: "read" }, { content: "## Goal\nGo on." }] });
  const hel = await openTestConversation({ sim: s, args: ["-C", dir, "--trust", "--tools", "read_file", "--effort", "none", "--compact-at", "6000"] });
  await hel.instruct("read notes.txt");
  expect(await hel.conversation.compact("keep the notes")).toBeNull();
  await hel.close();
  expect(s.requests).toHaveLength(3);
  expect(await payloads()).toEqual([{ session_id: hel.conversation.session.id, cwd: dir, hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the notes" }]);
});

it("a child's PreToolUse payload names the child; the parent's names none", async () => {
  const { command, payloads } = await logging();
  const dir = await projectWith({ PreToolUse: [{ command }] });
  await writeFile(join(dir, "a.txt"), "alpha\n");
  const s = await sim({ script: [{ tool_calls: [call("delegate_task", { task: "read a.txt" })] }, { tool_calls: [call("read_file", { path: "a.txt" })] }, { content: "alpha" }, { content: "done" }] });
  const run = await runInProcess({ args: ["-C", dir, "--trust", "--delegate", "task-only", "--effort", "none", "go"], baseUrl: s.url });
  expect(run.code).toBe(0);
  expect((await payloads()).map((p) => [p.tool_name, p.agent])).toEqual([
    ["delegate_task", undefined],
    ["read_file", { number: 1, kind: "delegate" }],
  ]);
});

it("an untrusted project's hooks are not run, with one warning", async () => {
  const { command, payloads } = await logging();
  const dir = await projectWith({ SessionStart: [{ command }], UserPromptSubmit: [{ command }], Stop: [{ command }] });
  const s = await sim({ script: [{ content: "hi" }] });
  const run = await runInProcess({ args: ["-C", dir, "hello"], baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(await payloads()).toEqual([]);
  expect(run.stderr.split("\n").filter((line) => line.includes("hooks"))).toEqual([
    `hel: ignored this project's hooks (${join(dir, ".hel", "config.json")}): a project's own files may not widen what hel does until you trust it — pass --trust to trust it for this run, or run hel in a terminal to be asked`,
  ]);
});

it("a matcher that is not a regular expression is a config error naming the key", async () => {
  const dir = await projectWith({ PreToolUse: [{ matcher: "read_(", command: "true" }] });
  await expect(runInProcess({ args: ["-C", dir, "hello"], baseUrl: "http://127.0.0.1:9" })).rejects.toThrow(
    /the config file .*config\.json has a bad value for "hooks\.PreToolUse\.0\.matcher": must be a regular expression over tool names \(.*\) — fix it or remove the key/,
  );
});

it("the README's kind of hook, `npx prettier` from the user's config, runs no prettier the project planted in node_modules/.bin", async () => {
  const dir = await tempProject();
  const marker = join(await tempProject(), "marker");
  await mkdir(join(dir, "node_modules", ".bin"), { recursive: true });
  await writeFile(join(dir, "node_modules", ".bin", "prettier"), `#!/bin/sh\necho planted >> ${JSON.stringify(marker)}\n`, { mode: 0o755 });
  const home = await tempProject();
  await mkdir(join(home, "hel"));
  await writeFile(join(home, "hel", "config.json"), JSON.stringify({ hooks: { SessionStart: [{ command: "npx prettier --version", timeout_s: 60 }] } }));
  const s = await sim({ script: [{ content: "done" }] });
  // Offline, npx cannot fetch prettier either: the hook fails, a warning, and the run goes on.
  const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "hi"], baseUrl: s.url, env: { XDG_CONFIG_HOME: home, npm_config_offline: "true" } });
  expect(run.code).toBe(0);
  await expect(readFile(marker, "utf8")).rejects.toThrow(/ENOENT/);
});
