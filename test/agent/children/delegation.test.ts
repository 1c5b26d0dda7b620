// Delegation on the seed's task, in a whole conversation opened in this process against the simulator:
// the parent reads services.ini, delegates the edit of deploy/api.yaml, reads it back and answers 8143.
// The child's first request body is asserted for each mode, with the cache figures the issue targets,
// and the records it leaves.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childTask } from "../../../src/agent/children/child-messages.js";
import { startSimulator, type Simulator } from "../../../sim/index.js";
import type { ChatRequest } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import type { DelegationLine } from "../../../src/record/schema.js";
import { recordLines } from "../../helpers/record-lines.js";
import { tempProject } from "../../helpers/temp-project.js";

const INSTRUCTION =
  "Read services.ini to find the api service's port. Then delegate to a subagent, with delegate_task, the job of changing the port in deploy/api.yaml to that value. After the subagent's result, read deploy/api.yaml yourself to check the changed line, and give only the changed port number as your final answer.";

let sim: Simulator;
afterEach(async () => sim?.close());

interface RequestLine {
  agent: "parent" | "child";
  delegation?: number;
  body: ChatRequest;
  usage: { prompt_tokens: number; prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number; completion_tokens: number };
  hit_ratio: number;
}

async function runH11(mode: "full" | "no-tools" | "task-only") {
  sim = await startSimulator({ policy: "h11" });
  const project = await tempProject("h11");
  const out = await tempProject();
  const result = await runInProcess({ args: ["-C", project, "--delegate", mode, "--record", out, "--json", INSTRUCTION], baseUrl: sim.url });
  const lines = await recordLines<RequestLine>(out, "requests.jsonl");
  const delegations = await recordLines<DelegationLine>(out, "delegations.jsonl");
  const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
  return { result, project, lines, delegations, record };
}

describe.each(["full", "no-tools", "task-only"] as const)("--delegate %s", (mode) => {
  it("runs the seed's flow and builds the child's first request from the parent's messages", async () => {
    const { result, project, lines, delegations, record } = await runH11(mode);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).answer).toBe("8143");
    expect(await readFile(join(project, "deploy", "api.yaml"), "utf8")).toMatch(/^port: 8143$/m);

    const agents = lines.map((l) => `${l.agent}${l.delegation ?? ""}`);
    expect(agents.slice(0, 2)).toEqual(["parent", "parent"]);
    expect(agents.filter((a) => a === "child1").length).toBeGreaterThanOrEqual(2);
    expect(agents.at(-1)).toBe("parent");

    const parentBeforeDelegation = lines[1]!.body;
    const delegateCall = lines.find((l, i) => i > 1 && l.agent === "parent")!.body.messages.find((m) => m.role === "assistant" && m.tool_calls?.[0]?.function.name === "delegate_task") as Extract<
      ChatRequest["messages"][number],
      { role: "assistant" }
    >;
    const task = JSON.parse(delegateCall.tool_calls![0]!.function.arguments).task as string;
    const [system, user] = parentBeforeDelegation.messages;
    // The parent's instruction is #1 and its read's result #2: the child's task is stamped #3.
    const taskMessage = { role: "user", content: `[#3] ${childTask(task)}` };
    const expectedMessages = {
      full: [...parentBeforeDelegation.messages, taskMessage],
      "no-tools": [system, user, taskMessage],
      "task-only": [system, taskMessage],
    }[mode];
    const childFirst = lines.find((l) => l.agent === "child")!;
    // Same model, settings and tool list (delegate_task included), byte for byte; only the messages differ.
    expect(childFirst.body).toEqual({ ...parentBeforeDelegation, messages: expectedMessages });
    expect(JSON.stringify(childFirst.body.tools)).toBe(JSON.stringify(parentBeforeDelegation.tools));
    expect(childFirst.body.tools!.slice(-2).map((t) => t.function.name)).toEqual(["delegate_task", "review_changes"]);

    // One delegation line: mode, the parent's words, the child's tool calls, its answer and usage.
    expect(delegations).toHaveLength(1);
    const childLines = lines.filter((l) => l.agent === "child");
    expect(delegations[0]).toMatchObject({ delegation: 1, kind: "delegate", mode, task, exit_reason: "completed" });
    expect(delegations[0]!.tool_calls.map((c: { name: string }) => c.name)).toContain("search_replace");
    expect(delegations[0]!.usage.prompt_tokens).toBe(childLines.reduce((s, l) => s + l.usage.prompt_tokens, 0));

    // Usage per agent in record.json; --json usage includes the child's requests.
    expect(record.usage.child.requests).toBe(childLines.length);
    expect(record.usage.parent.requests).toBe(lines.length - childLines.length);
    const json = JSON.parse(result.stdout);
    expect(json.usage.requests).toBe(lines.length);
    expect(json.usage.prompt_tokens).toBe(lines.reduce((s, l) => s + l.usage.prompt_tokens, 0));

    // The terminal shows the delegation as it happens, the child's tool calls indented.
    expect(result.stderr).toContain(`⇢ delegating (${mode}) #1:`);
    expect(result.stderr).toMatch(/\n {4}→ search_replace /);
    expect(result.stderr).toMatch(/⇠ delegation #1 completed: \d+ requests · [\d,]+ input tokens \([\d,]+ cached/);

    // Cache: the parent's first request after the child returns extends its own previous request.
    const parentAfter = lines[lines.findIndex((l) => l.agent === "child") + childLines.length]!;
    expect(parentAfter.agent).toBe("parent");
    expect(parentAfter.body.messages.slice(0, parentBeforeDelegation.messages.length)).toEqual(parentBeforeDelegation.messages);
    expect(parentAfter.hit_ratio).toBeGreaterThanOrEqual(0.9);
    if (mode === "full") expect(childFirst.hit_ratio).toBeGreaterThanOrEqual(0.9);
  });
});

it("the task-only child's first request hits every whole block of the system prompt and tools", async () => {
  const { lines } = await runH11("task-only");
  const childFirst = lines.find((l) => l.agent === "child")!;
  // Ask the simulator how long the shared prefix is: the same system prompt and tools alone (the
  // count includes one closing marker, hence the -1).
  const probe = await startSimulator();
  const res = await fetch(`${probe.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer probe" },
    body: JSON.stringify({ ...childFirst.body, messages: [childFirst.body.messages[0]], stream: false, stream_options: undefined }),
  });
  const prefixTokens = ((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
  await probe.close();
  expect(childFirst.usage.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(Math.floor((prefixTokens - 1) / 64) * 64);
  expect(childFirst.usage.prompt_cache_hit_tokens).toBeGreaterThan(0);
});

describe("a child that misbehaves", () => {
  const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

  it("a delegate call from the child gets an error telling it to do the work itself", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [call("delegate_task", { task: "say hi" })] }, { tool_calls: [call("delegate_task", { task: "say hi again" })] }, { content: "hi" }, { content: "child said hi" }],
    });
    const project = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--delegate", "task-only", "go"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const childSecond = sim.requests[2]!.body as ChatRequest;
    expect(childSecond.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringMatching(/^\[#3\] Error: a subagent cannot delegate.*yourself/) });
    const parentLast = sim.requests[3]!.body as ChatRequest;
    expect(parentLast.messages.at(-1)).toMatchObject({ role: "tool", content: "[#4] hi" });
    expect(result.stdout).toBe("child said hi\n");
  });

  it("a child that fails returns an error result and the parent carries on", async () => {
    sim = await startSimulator({
      script: [
        { tool_calls: [call("delegate_task", { task: "read the project" })] },
        { tool_calls: [call("read_file", { path: "." })] },
        { fault: { kind: "status", status: 400 } },
        { content: "the subagent failed; I stopped" },
      ],
    });
    const project = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--delegate", "full", "go"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    const parentAfter = sim.requests[3]!.body as ChatRequest;
    expect(parentAfter.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringMatching(/^\[#\d+\] Error: the subagent did not finish \(error: .*400/) });
    // Only the child's outcome entered the parent's conversation, never its messages.
    expect(parentAfter.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(result.stdout).toBe("the subagent failed; I stopped\n");
  });

  it("delegate_task and then review_changes are offered last, with descriptions of what the children see", async () => {
    sim = await startSimulator({ script: [{ content: "ok" }] });
    const project = await tempProject();
    await runInProcess({ args: ["-C", project, "--delegate", "no-tools", "go"], baseUrl: sim.url });
    const tools = (sim.requests[0]!.body as ChatRequest).tools!;
    expect(tools.map((t) => t.function.name)).toEqual(["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo", "delegate_task", "review_changes"]);
    const description = (name: string) => tools.find((t) => t.function.name === name)!.function.description;
    expect(description("delegate_task")).toMatch(/without tool calls and tool results/);
    expect(description("delegate_task")).toMatch(/final answer is all that comes back/);
    expect(description("delegate_task")).toMatch(/exact output/);
    expect(description("review_changes")).toMatch(/only the user's instructions of this session \(verbatim\) and a unified diff/);
  });
});
