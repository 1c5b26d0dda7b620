// Plan mode (src/agent/plan-mode.ts) against the simulator: one-shot `--plan` whose edit is refused
// by hel with a result that says so, whose command runs read-only and whose todo runs; its requests
// carry the same system prompt and tool list as the `hel -c "go"` that carries the plan out (the
// prefix DeepSeek caches), the plan-mode note travelling in the user's message alone; a delegated
// child in plan mode changes nothing either.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ChatRequest } from "../../src/wire/messages.js";
import { PLAN_NOTE, planPolicy, planRefusal } from "../../src/agent/plan-mode.js";
import { runInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { simulators } from "../helpers/simulators.js";

const sim = simulators();
const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const EDIT = call("search_replace", { path: "a.txt", old_text: "one", new_text: "two" });
const REFUSAL =
  "Error: plan mode: search_replace was not run, since it changes files and plan mode changes nothing. Keep to reading (read_file, grep, find_files, read-only commands), then end your answer with the plan; once the user says go, make the change.";

it("one-shot --plan refuses the edit, runs the command read-only, prints the plan and exits 0; -c go carries it out with the same prefix", async () => {
  const dir = await tempProject();
  await writeFile(join(dir, "a.txt"), "one\n");
  const s = await sim({
    script: [
      { tool_calls: [EDIT, call("run_command", { command: "cat a.txt; touch made" }), call("todo", { items: [{ text: "change one to two", status: "pending" }] })] },
      { content: "1. Change one to two in a.txt." },
      { tool_calls: [EDIT] },
      { content: "done" },
    ],
  });
  const planned = await runInProcess({ args: ["-C", dir, "--effort", "none", "--plan", "change one to two"], baseUrl: s.url });
  expect(planned.code).toBe(0);
  expect(planned.stdout).toBe("1. Change one to two in a.txt.\n");
  expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("one\n");
  await expect(readFile(join(dir, "made"))).rejects.toThrow();
  const [first, second] = [0, 1].map((i) => s.requests[i]!.body as ChatRequest);
  expect(first!.messages[1]).toEqual({ role: "user", content: `[#1] change one to two${PLAN_NOTE}` });
  const results = second!.messages.slice(-3).map((m) => m.content as string);
  expect(results[0]).toBe(`[#2] ${REFUSAL}`);
  expect(results[1]).toMatch(/^\[#3\] /);
  expect(results[1]).toContain("one");
  expect(results[1]).toContain("Read-only file system");
  expect(results[2]).toBe("[#4] todo list: 0 done, 0 in progress, 1 pending");

  const go = await runInProcess({ args: ["-C", dir, "--effort", "none", "-c", "go"], baseUrl: s.url });
  expect(go.code).toBe(0);
  expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("two\n");
  const [third, fourth] = [2, 3].map((i) => s.requests[i]!.body as ChatRequest);
  // The same system prompt and tools: the request goes on from the plan's, which it holds whole.
  expect(third!.tools).toEqual(first!.tools);
  expect(third!.messages.slice(0, second!.messages.length + 1)).toEqual([...second!.messages, { role: "assistant", content: "1. Change one to two in a.txt." }]);
  expect(third!.messages.at(-1)).toEqual({ role: "user", content: "[#5] go" });
  expect(fourth!.messages.at(-1)!.content).toMatch(/^\[#6\] /);
  expect(fourth!.messages.at(-1)!.content).not.toContain("plan mode");
});

it("a delegated child in plan mode changes nothing either", async () => {
  const dir = await tempProject();
  await writeFile(join(dir, "a.txt"), "one\n");
  const s = await sim({ script: [{ tool_calls: [call("delegate_task", { task: "change it" })] }, { tool_calls: [EDIT] }, { content: "could not" }, { content: "the plan" }] });
  const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "--delegate", "task-only", "--plan", "look"], baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("one\n");
  const childSecond = s.requests[2]!.body as ChatRequest;
  expect(childSecond.messages.at(-1)!.content).toContain(REFUSAL);
});

it("lets run what changes nothing, commands read-only, and refuses the rest by what it is", () => {
  expect(["read_file", "grep", "find_files", "fold", "recall", "ask", "todo", "run_command", "delegate_task", "review_changes"].map(planRefusal)).toEqual(Array(10).fill(null));
  expect(planRefusal("mcp__gh__create_issue")).toMatch(/^plan mode: mcp__gh__create_issue was not run, since it may change things outside what hel can keep read-only/);
  const policy = { access: "full" as const, network: true, approvals: null, readOnlyPaths: [], secrets: [], skillDirs: [] };
  expect(planPolicy(policy)).toEqual({ ...policy, access: "read-only" });
});
