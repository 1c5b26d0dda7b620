// Parallel children end to end, hel run in this process as the command runs it
// (helpers/conversation.ts) against the simulator: three delegate_task calls in one message run at once
// under each --delegate mode, with their records and transcripts; a child's API error or step budget
// leaves its siblings' results in place; --max-cost counts the requests in flight. Ctrl-C while they
// wait is test/e2e/parallel-children.test.ts's.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childTask } from "../../src/agent/children/child-messages.js";
import type { DelegateMode } from "../../src/agent/events.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { startSimulator, type SimStep, type Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import { runHelInProcess } from "../helpers/conversation.js";
import type { DelegationLine } from "../../src/record/schema.js";
import { recordLines } from "../helpers/record-lines.js";
import { call, childOf, parallelPolicy, toolResults } from "../helpers/parallel-policy.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

/** Long enough that a child's first request is still unanswered when its siblings' arrive. */
const FIRST_DELAY_MS = 1500;

const TASKS = ["Task A: set alpha to 2 in shared.txt.", "Task B: set beta to 2 in shared.txt.", "Task C: read shared.txt and report gamma."].map((task) => ({ task }));
const EDITS: Record<string, [string, string]> = { A: ["alpha: 1", "alpha: 2"], B: ["beta: 1", "beta: 2"] };

/** A and B edit the same file, C reads it; A answers last, so finishing order differs from call order. */
const threeChildren = parallelPolicy(TASKS, {
  A: (n) =>
    n === 0
      ? { faults: [{ kind: "delay", ms: FIRST_DELAY_MS }], reply: { tool_calls: [call("search_replace", { path: "shared.txt", old_text: EDITS.A![0], new_text: EDITS.A![1] })] } }
      : { faults: [{ kind: "delay", ms: 300 }], reply: { content: "A done" } },
  B: (n) => (n === 0 ? { faults: [{ kind: "delay", ms: FIRST_DELAY_MS }], reply: { tool_calls: [call("search_replace", { path: "shared.txt", old_text: EDITS.B![0], new_text: EDITS.B![1] })] } } : { content: "B done" }),
  C: (n) => (n === 0 ? { faults: [{ kind: "delay", ms: FIRST_DELAY_MS }], reply: { tool_calls: [call("read_file", { path: "shared.txt" })] } } : { content: "C done: gamma is 1" }),
});

interface RequestLine {
  agent: "parent" | "child";
  delegation?: number;
  body: ChatRequest;
}

async function runParallel(mode: DelegateMode) {
  sim = await startSimulator({ policy: threeChildren });
  const project = await tempProject();
  await writeFile(join(project, "shared.txt"), "alpha: 1\nbeta: 1\ngamma: 1\n");
  const out = await tempProject();
  const result = await runHelInProcess({ args: ["-C", project, "--delegate", mode, "--record", out, "--json", "Do the three tasks with three subagents at once."], baseUrl: sim.url });
  const lines = await recordLines<RequestLine>(out, "requests.jsonl");
  const delegations = await recordLines<DelegationLine>(out, "delegations.jsonl");
  return { result, project, lines, delegations };
}

describe.each(["full", "no-tools", "task-only"] as const)("three delegate_task calls in one message, --delegate %s", (mode) => {
  it("run at once, each first request the parent's with the mode's messages, results in call order, records and transcripts per child", async () => {
    const { result, project, lines, delegations } = await runParallel(mode);
    expect(result.code).toBe(0);

    // The three first requests overlapped: each arrived while the ones before it were still unanswered.
    const bodies = sim.requests.map((r) => r.body as ChatRequest);
    const firsts = sim.requests.filter((r) => childOf(r.body as ChatRequest) !== null && toolResults(r.body as ChatRequest).length === 0);
    expect(firsts.map((r) => r.overlapping).sort()).toEqual([0, 1, 2]);

    // Byte for byte the parent's request that delegated, but for the messages the mode gives the child;
    // so each hits the cache for every whole block of the parent's prompt it repeats (the count has
    // one closing marker, hence the -1).
    const parentFirst = bodies[0]!;
    const [system, user] = parentFirst.messages;
    const parentPrompt = sim.requests[0]!.usage!.prompt_tokens;
    // The children's tasks were stamped in call order, right after the parent's instruction (#1).
    for (const [i, { task }] of TASKS.entries()) {
      const expected = { full: [system, user], "no-tools": [system, user], "task-only": [system] }[mode];
      const first = firsts.find((r) => lastUserText(r.body as ChatRequest) === childTask(task))!;
      expect(JSON.stringify(first.body)).toBe(JSON.stringify({ ...parentFirst, messages: [...expected, { role: "user", content: `[#${i + 2}] ${childTask(task)}` }] }));
      expect(first.usage!.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(mode === "task-only" ? 64 : Math.floor((parentPrompt - 1) / 64) * 64);
    }

    // A finished last, yet the results are in call order, and only the answers reached the parent.
    const parentLast = bodies.findLast((b) => childOf(b) === null)!;
    expect(parentLast.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "tool"]);
    const callIds = (parentLast.messages[2] as Extract<Message, { role: "assistant" }>).tool_calls!.map((c) => c.id);
    expect(toolResults(parentLast).map((m) => [m.tool_call_id, m.content])).toEqual([
      // #5–#7 went to the children's own tool results; the parent's come after, in call order.
      [callIds[0], "[#8] A done"],
      [callIds[1], "[#9] B done"],
      [callIds[2], "[#10] C done: gamma is 1"],
    ]);
    expect(JSON.parse(result.stdout).answer).toBe("[#8] A done\n---\n[#9] B done\n---\n[#10] C done: gamma is 1");

    // Both edits of the one file landed.
    expect(await readFile(join(project, "shared.txt"), "utf8")).toBe("alpha: 2\nbeta: 2\ngamma: 1\n");

    // Each child has its own request lines, delegation line and transcript, numbered in call order.
    expect(
      lines
        .filter((l) => l.agent === "child")
        .map((l) => l.delegation)
        .sort(),
    ).toEqual([1, 1, 2, 2, 3, 3]);
    for (const l of lines.filter((x) => x.agent === "child")) expect(lastUserText(l.body)).toContain(TASKS[l.delegation! - 1]!.task);
    expect(delegations.map((d) => [d.delegation, d.task, d.exit_reason]).sort()).toEqual(TASKS.map(({ task }, i) => [i + 1, task, "completed"]));
    const sessionId = JSON.parse(result.stdout).session_id as string;
    for (const [i, { task }] of TASKS.entries()) {
      const transcript = JSON.parse(await readFile(join(project, ".hel", "sessions", sessionId, "children", `${i + 1}.json`), "utf8"));
      expect(transcript).toMatchObject({ number: i + 1, task, exit_reason: "completed", answer: ["A done", "B done", "C done: gamma is 1"][i] });
    }
  });
});

it("one child's API error, one cut off by its step budget: the sibling's result still arrives, each in its place", async () => {
  const tasks = [{ task: "Task A: report ok." }, { task: "Task B: report ok." }, { task: "Task C: read everything.", max_steps: 1 }];
  sim = await startSimulator({
    policy: parallelPolicy(tasks, {
      A: () => ({ faults: [{ kind: "delay", ms: 300 }], reply: { content: "A ok" } }),
      // Only B's request fails: a 400 is not retried.
      B: () => ({ fault: { kind: "status", status: 400 } }),
      C: () => ({ content: "Reading the first file.", tool_calls: [call("read_file", { path: "." })] }),
    }),
  });
  const project = await tempProject();
  const result = await runHelInProcess({ args: ["-C", project, "--delegate", "task-only", "--json", "Do the three tasks at once."], baseUrl: sim.url });
  expect(result.code).toBe(0);
  const parentLast = sim.requests.map((r) => r.body as ChatRequest).findLast((b) => childOf(b) === null)!;
  const [a, b, c] = toolResults(parentLast).map((m) => m.content);
  // The tasks took #2–#4 and C's read_file result #5; the parent's results follow in call order.
  expect(a).toBe("[#6] A ok");
  expect(b).toMatch(/^\[#7\] Error: the subagent did not finish \(error: .*400.*\)\. Do the task yourself, or delegate a smaller, clearer task\.$/);
  expect(c).toBe("[#8] Reading the first file.\n\n[the subagent was stopped by its step budget of 1 model request (the max_steps of this call) before it finished]");
  expect(JSON.parse(result.stdout).answer).toBe([a, b, c].join("\n---\n"));
});

describe("--max-cost with eight children at once", () => {
  // A dollar per million tokens of any kind: a request's cost is its tokens, in millionths.
  const prices = { models: { "deepseek-flash": { cache_hit: 1, cache_miss: 1, output: 1 } } };
  const letters = "ABCDEFGH".split("");
  const tasks = letters.map((x) => ({ task: `Task ${x}: report ok.` }));
  // Each child's one request is still unanswered when its siblings' are sent, and answers at length.
  const slow = (x: string) => (): SimStep => ({ faults: [{ kind: "delay", ms: FIRST_DELAY_MS }], reply: { content: `${x} ok. ${"word ".repeat(100)}` } });
  const policy = () => parallelPolicy(tasks, Object.fromEntries(letters.map((x) => [x, slow(x)])));

  it("counts the requests in flight: the whole run spends no more than the limit", async () => {
    const project = await tempProject();
    const table = join(project, ".hel-prices.json");
    await writeFile(table, JSON.stringify(prices));
    const args = ["-C", project, "--delegate", "task-only", "--max-output-tokens", "4000", "--json"];
    // A run without a limit measures the parent's first request and a child's.
    sim = await startSimulator({ policy: policy() });
    const free = await runHelInProcess({ args: [...args, "Do the eight tasks at once."], baseUrl: sim.url, env: { HEL_PRICES: table } });
    expect(free.code, free.stderr).toBe(0);
    const cost = (r: Simulator["requests"][number]) => (r.usage!.prompt_tokens + r.usage!.completion_tokens) / 1e6;
    const parentFirst = cost(sim.requests[0]!);
    const childRequests = sim.requests.filter((r) => childOf(r.body as ChatRequest) !== null);
    expect(childRequests).toHaveLength(8);
    const child = Math.max(...childRequests.map(cost));
    await sim.close();
    // Room for the parent's first request and about two children's, each reserved with its max_tokens.
    const limit = parentFirst + 2.5 * (child + 4000 / 1e6);
    sim = await startSimulator({ policy: policy() });
    const result = await runHelInProcess({ args: [...args, "--max-cost", limit.toFixed(6), "Do the eight tasks at once."], baseUrl: sim.url, env: { HEL_PRICES: table } });
    const json = JSON.parse(result.stdout);
    expect(json.usage.cost_usd).toBeGreaterThan(parentFirst);
    expect(json.usage.cost_usd).toBeLessThanOrEqual(Number(limit.toFixed(6)));
    // The children the limit left no room for said why.
    expect(result.stderr).toContain("the subagent did not finish (budget: stopped before a request");
  });
});
