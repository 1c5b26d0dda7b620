// review_changes end to end, hel run in this process as the command runs it (helpers/conversation.ts)
// against the simulator: the reviewer's first request (the parent's system message and tool list byte
// for byte, then one message holding the role note, the user's instructions verbatim and the diff),
// its records, and what the parent gets back when the reviewer answers valid JSON, invalid JSON and
// then valid, invalid JSON twice, tries to edit, or runs out of budget; a review with no changes starts
// no reviewer; in git, what changed besides hel's own edits is in the diff.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { retryMessage, REVIEW_ROLE_NOTE } from "../../src/agent/children/review.js";
import { NO_CHANGES } from "../../src/agent/children/review-tool.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { startSimulator, type SimReply, type SimStep, type Simulator } from "../../sim/index.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const INSTRUCTION = "Fix add in calc.py so that it adds.";

/** What JSON.parse says of `text`, as the reviewer's retry message quotes it. */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${text} parsed`);
}
const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const fix = { tool_calls: [call("search_replace", { path: "calc.py", old_text: "return a - b", new_text: "return a + b" })] };
const review = (focus?: string) => ({ tool_calls: [call("review_changes", focus ? { focus } : {})] });
const REVIEW = { verdict: "incorrect", findings: [{ title: "No test", body: "Nothing checks add.", path: "calc.py", line: 2, priority: 2 }] };
const CALC_DIFF = ["diff --git a/calc.py b/calc.py", "--- a/calc.py", "+++ b/calc.py", "@@ -1,2 +1,2 @@", " def add(a, b):", "-    return a - b", "+    return a + b", ""].join("\n");

const bodyOf = (i: number) => sim!.requests[i]!.body as ChatRequest;
const lastMessage = (i: number) => bodyOf(i).messages.at(-1) as Message;

async function run(script: SimStep[], extra: string[] = [], project?: string) {
  sim = await startSimulator({ script });
  const dir = project ?? (await tempProject());
  if (!project) await writeFile(join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
  const out = await tempProject();
  const result = await runHelInProcess({ args: ["-C", dir, "--delegate", "full", "--json", "--record", out, ...extra, INSTRUCTION], baseUrl: sim.url });
  const jsonl = async (name: string) =>
    (await readFile(join(out, "raw", name), "utf8"))
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return { result, dir, json: JSON.parse(result.stdout || "{}"), requests: await jsonl("requests.jsonl"), delegations: await jsonl("delegations.jsonl") };
}

describe("a review", () => {
  it("sends the reviewer the parent's system message and tools, then the role note, the instructions and the diff; the parent gets its JSON", async () => {
    const { result, dir, json, requests, delegations } = await run([fix, review("the arithmetic"), { content: JSON.stringify(REVIEW) }, { content: "Fixed; the review wants a test." }]);
    expect(result.code).toBe(0);
    expect(sim!.requests).toHaveLength(4);
    const parentFirst = bodyOf(0);
    const reviewer = bodyOf(2);
    // Everything but the messages is the parent's, byte for byte: the prefix cache can serve the system message and tools.
    expect(reviewer).toEqual({
      ...parentFirst,
      messages: [
        parentFirst.messages[0],
        {
          role: "user",
          content: [
            REVIEW_ROLE_NOTE,
            `The user's requirement: every instruction the user gave in this session, verbatim, in order.\n\n[instruction 1]\n${INSTRUCTION}`,
            "Look hardest at: the arithmetic",
            `The changes: a unified diff of the project since the session began.\n\n${CALC_DIFF}`,
          ].join("\n\n"),
        },
      ],
    });
    expect(JSON.stringify(reviewer.tools)).toBe(JSON.stringify(parentFirst.tools));
    expect(sim!.requests[2]!.usage!.prompt_cache_hit_tokens).toBeGreaterThan(0);

    // The parent gets the review, checked and normalised, as the call's result.
    expect(lastMessage(3)).toMatchObject({ role: "tool", content: `[#3] ${JSON.stringify(REVIEW)}` });
    expect(result.stderr).toContain("⇢ delegating (review) #1: the arithmetic");

    // Recorded as a child of kind review: requests, delegations, --json, the transcript.
    expect(requests.map((l) => `${l.agent}${l.delegation ?? ""}${l.kind ? ` ${l.kind}` : ""}`)).toEqual(["parent", "parent", "child1 review", "parent"]);
    expect(delegations).toEqual([expect.objectContaining({ delegation: 1, kind: "review", mode: null, task: "the arithmetic", answer: JSON.stringify(REVIEW), exit_reason: "completed", tool_calls: [] })]);
    expect(json.usage.by_agent[1]).toMatchObject({ agent: "child", delegation: 1, kind: "review", requests: 1 });
    const transcript = JSON.parse(await readFile(join(dir, ".hel", "sessions", json.session_id, "children", "1.json"), "utf8"));
    expect(transcript).toMatchObject({ number: 1, kind: "review", mode: null, exit_reason: "completed", messages: reviewer.messages.concat([expect.objectContaining({ role: "assistant" })]) });
    const show = await runHel({ args: ["-C", dir, "sessions", "show", json.session_id] });
    expect(show.stdout).toMatch(/\n {2}#1 {2}review {2}completed {2}1 request {2}[\d,]+ tokens {2}\$\d\.\d{4} {2}the arithmetic\n/);
  });

  it("an answer that is not the JSON gets one more request naming the problem; a valid second answer is the result", async () => {
    const { result } = await run([fix, review(), { content: "The change looks right to me." }, { content: "```json\n" + JSON.stringify(REVIEW) + "\n```" }, { content: "done" }]);
    expect(result.code).toBe(0);
    expect(sim!.requests).toHaveLength(5);
    const retry = bodyOf(3);
    expect(retry.tools).toEqual(bodyOf(2).tools);
    expect(retry.messages.slice(0, 2)).toEqual(bodyOf(2).messages);
    expect(retry.messages.slice(2)).toEqual([
      { role: "assistant", content: "The change looks right to me.", reasoning_content: expect.any(String) },
      { role: "user", content: `[#3] ${retryMessage(`it is not JSON (${parseError("The change looks right to me.")})`)}` },
    ]);
    expect(retry.messages.at(-1)!.content).toMatch(
      /^\[#3\] Your answer is not the JSON object asked for: it is not JSON \(.+\)\. Answer again with only that JSON object, with no text before or after it and no code fence: \{"verdict"/,
    );
    expect(lastMessage(4)).toMatchObject({ role: "tool", content: `[#4] ${JSON.stringify(REVIEW)}` });
  });

  it("an answer that is still not the JSON after one retry is an error result the parent can act on, after exactly two requests", async () => {
    const { result, delegations } = await run([fix, review(), { content: "Fine." }, { content: '{"verdict": "fine", "findings": []}' }, { content: "I reviewed it myself." }]);
    expect(result.code).toBe(0);
    expect(sim!.requests).toHaveLength(5);
    expect(lastMessage(4)).toMatchObject({
      role: "tool",
      content:
        '[#4] Error: the reviewer\'s answer was not the review JSON, even when asked again (verdict: Invalid option: expected one of "correct"|"incorrect"). It began: "{\\"verdict\\": \\"fine\\", \\"findings\\": []}". Call review_changes again, or review the changes yourself.',
    });
    expect(delegations[0]).toMatchObject({ kind: "review", exit_reason: "completed", usage: { requests: 2 } });
  });

  it("a reviewer that, asked again, reads on instead of answering gets no further request: an error result", async () => {
    const { result } = await run([fix, review(), { content: "Fine." }, { tool_calls: [call("read_file", { path: "calc.py" })] }, { content: "done" }]);
    expect(result.code).toBe(0);
    expect(sim!.requests).toHaveLength(5);
    expect(lastMessage(4)).toMatchObject({
      role: "tool",
      content: "[#5] Error: the reviewer's answer was not the review JSON, even when asked again (asked again, it called tools instead of answering). Call review_changes again, or review the changes yourself.",
    });
  });

  it("with no changes yet: a clear result and no reviewer started, even after an edit that failed", async () => {
    const failed = { tool_calls: [call("search_replace", { path: "calc.py", old_text: "no such text", new_text: "x" })] };
    const { result, delegations } = await run([failed, review(), { content: "Nothing to review." }]);
    expect(result.code).toBe(0);
    expect(sim!.requests).toHaveLength(3);
    expect(lastMessage(2)).toMatchObject({ role: "tool", content: `[#3] ${NO_CHANGES}` });
    expect(delegations).toEqual([]);
  });

  it("a reviewer that tries to edit, or to delegate, is refused and the file is left as it was", async () => {
    const edit = call("search_replace", { path: "calc.py", old_text: "return a + b", new_text: "return b + a" });
    const { result, dir } = await run([fix, review(), { tool_calls: [edit, call("delegate_task", { task: "x" })] }, { content: JSON.stringify(REVIEW) }, { content: "done" }]);
    expect(result.code).toBe(0);
    expect(bodyOf(3).messages.slice(-2)).toEqual([
      { role: "tool", tool_call_id: expect.any(String), content: "[#3] Error: you are the reviewer: you may read files but never edit them. Report the change that is needed as a finding in your JSON answer instead." },
      { role: "tool", tool_call_id: expect.any(String), content: "[#4] Error: a subagent cannot delegate or start a review (depth limit reached). Do this task yourself with your other tools." },
    ]);
    expect(await readFile(join(dir, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
    expect(lastMessage(4)).toMatchObject({ role: "tool", content: `[#5] ${JSON.stringify(REVIEW)}` });
  });

  it("a reviewer its budget stops gives an error result naming the budget", async () => {
    const { result } = await run([fix, review(), { content: "Reading it first.", tool_calls: [call("read_file", { path: "calc.py" })] }, { content: "ok" }], ["--child-max-steps", "1"]);
    expect(result.code).toBe(0);
    expect(sim!.requests).toHaveLength(4);
    expect(lastMessage(3)).toMatchObject({
      role: "tool",
      content:
        '[#4] Error: [the reviewer was stopped by its step budget of 1 model request (--child-max-steps) before it finished] with no review. Its last text: "Reading it first.". Call review_changes again with a narrower focus, or review the diff yourself.',
    });
  });
});

describe("in a git repository", () => {
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

  it("the diff also holds what changed outside hel's tools since the session began: edited, created and deleted files", async () => {
    const dir = await tempProject();
    await writeFile(join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
    await writeFile(join(dir, "notes.txt"), "old note\n");
    await writeFile(join(dir, "gone.txt"), "bye\n");
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "start");
    // The second request finds the project changed as a command of the first turn would have left it.
    const steps: SimReply[] = [fix, review(), { content: JSON.stringify(REVIEW) }, { content: "done" }];
    sim = await startSimulator({
      policy: (_req, { requestIndex }) => {
        if (requestIndex === 1) {
          writeFileSync(join(dir, "notes.txt"), "new note\n");
          writeFileSync(join(dir, "made.txt"), "made\n");
          rmSync(join(dir, "gone.txt"));
        }
        return steps[requestIndex]!;
      },
    });
    const result = await runHelInProcess({ args: ["-C", dir, "--delegate", "task-only", INSTRUCTION], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const message = bodyOf(2).messages[1]!.content as string;
    expect(message.slice(message.indexOf("\n\ndiff --git") + 2)).toBe(
      [
        CALC_DIFF.trimEnd(),
        "diff --git a/gone.txt b/gone.txt",
        "deleted file",
        "--- a/gone.txt",
        "+++ /dev/null",
        "@@ -1,1 +0,0 @@",
        "-bye",
        "diff --git a/made.txt b/made.txt",
        "new file",
        "--- /dev/null",
        "+++ b/made.txt",
        "@@ -0,0 +1,1 @@",
        "+made",
        "diff --git a/notes.txt b/notes.txt",
        "--- a/notes.txt",
        "+++ b/notes.txt",
        "@@ -1,1 +1,1 @@",
        "-old note",
        "+new note",
        "",
      ].join("\n"),
    );
    // hel's own state is never part of it.
    expect(existsSync(join(dir, ".hel"))).toBe(true);
    expect(message).not.toContain(".hel/");
    expect(await readdir(dir)).not.toContain("gone.txt");
  });
});
