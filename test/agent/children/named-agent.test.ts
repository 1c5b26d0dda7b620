// Named agents in whole conversations opened in this process against the simulator: the agent files of
// a project shape delegate_task's definition and each child's first request (its mode's messages, the
// role note with the agent's instructions, the parent's tool list byte for byte, its model), a tool
// outside an agent's list answers with a refusal, its max-steps ends it, and every reader names it.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { childTask, delegateDescription } from "../../../src/agent/children/child-messages.js";
import { parseAgentFile, withinAccess } from "../../../src/agent/children/named-agent.js";
import { runSessionsCommand } from "../../../src/cli/sessions-command.js";
import { startSimulator, type Simulator } from "../../../sim/index.js";
import type { ChatRequest, Message } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import { tempProject } from "../../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

const AGENTS: Record<string, string> = {
  "explorer.md": "---\ndescription: Finds where things are in the code and reports them\nmode: full\ntools: [read_file, grep]\n---\nOnly read; never edit.\n",
  "writer.md": "---\ndescription: Writes the release notes\nmode: no-tools\nmodel: deepseek-v4-pro\n---\nWrite in the past tense.\n",
  "tester.md": "---\ndescription: Runs the tests\naccess: full\n---\nRun `npm test` and report failures.\n",
  "broken.md": "---\ndescription: Never offered\nmode: sideways\n---\n",
};

async function agentProject(): Promise<string> {
  const project = await tempProject();
  await mkdir(join(project, ".hel", "agents"), { recursive: true });
  for (const [name, text] of Object.entries(AGENTS)) await writeFile(join(project, ".hel", "agents", name), text);
  await writeFile(join(project, "notes.txt"), "release 1.2\n");
  return project;
}

/** The agent as its file makes it, for the role note the test expects. */
const agentOf = (file: string) => withinAccess(parseAgentFile(file.slice(0, -3), AGENTS[file]!), "edit").agent;

/** `hel --delegate task-only go` in a project with one agent file and notes.txt; the project. */
async function runWithAgent(file: string, text: string): Promise<string> {
  const project = await tempProject();
  await mkdir(join(project, ".hel", "agents"), { recursive: true });
  await writeFile(join(project, ".hel", "agents", file), text);
  await writeFile(join(project, "notes.txt"), "release 1.2\n");
  const result = await runInProcess({ args: ["-C", project, "--delegate", "task-only", "go"], baseUrl: sim.url });
  expect(result.code).toBe(0);
  return project;
}

const lines = async (path: string) =>
  (await readFile(path, "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("a project with agent files, under --delegate full", () => {
  it("offers them in delegate_task and builds each agent's child as its mode, instructions, tools and model say", async () => {
    sim = await startSimulator({
      script: [
        { tool_calls: [call("delegate_task", { task: "write the notes", agent: "writer" })] },
        { content: "notes written" },
        { tool_calls: [call("delegate_task", { task: "run the tests", agent: "tester" })] },
        { content: "tests pass" },
        { tool_calls: [call("delegate_task", { task: "find the version", agent: "explorer" })] },
        { tool_calls: [call("search_replace", { path: "notes.txt", old_text: "1.2", new_text: "1.3" })] },
        { content: "the version is 1.2" },
        { content: "done" },
      ],
    });
    const project = await agentProject();
    const out = await tempProject();
    const result = await runInProcess({ args: ["-C", project, "--delegate", "full", "--record", out, "--json", "go"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    // The malformed file is skipped with one warning; the agent that asks for more access is clamped.
    const warnings = result.stderr.split("\n").filter((l) => l.startsWith("hel: "));
    expect(warnings).toEqual([
      `hel: the agent file ${join(project, ".hel", "agents", "broken.md")} is skipped: mode must be one of full, no-tools, task-only — fix it or remove it`,
      `hel: the agent tester (${join(project, ".hel", "agents", "tester.md")}) asks for access full, wider than this session's edit — it runs with edit`,
    ]);

    const bodies = sim.requests.map((r) => r.body as ChatRequest);
    const [parent1, writer, parent2, tester, parent3, explorer1, explorer2, parent4] = bodies as [ChatRequest, ChatRequest, ChatRequest, ChatRequest, ChatRequest, ChatRequest, ChatRequest, ChatRequest];
    // delegate_task takes `agent`, one of the three names, and its description lists them in order.
    const delegate = parent1.tools!.find((t) => t.function.name === "delegate_task")!.function;
    expect(delegate.parameters).toEqual({
      type: "object",
      properties: {
        task: expect.objectContaining({ type: "string" }),
        agent: { type: "string", enum: ["explorer", "tester", "writer"], description: "The named agent to do the task; omit it for a subagent as described above." },
        max_steps: expect.objectContaining({ type: "integer" }),
      },
      required: ["task"],
    });
    expect(delegate.description.startsWith(`${delegateDescription("full")}\n\nNamed agents: pass \`agent\``)).toBe(true);
    expect(delegate.description.split("\n").slice(-3)).toEqual([
      "- explorer (full): Finds where things are in the code and reports them",
      "- tester (task-only): Runs the tests",
      "- writer (no-tools): Writes the release notes",
    ]);

    const [system, user] = parent1.messages as [Message, Message];
    const task = (stamp: number, text: string, file: string) => ({ role: "user", content: `[#${stamp}] ${childTask(text, agentOf(file))}` });
    // no-tools, on its own model: the parent's instructions and answers, then the role note with its instructions.
    expect(writer).toEqual({ ...parent1, model: "deepseek-v4-pro", messages: [system, user, task(2, "write the notes", "writer.md")] });
    expect(task(2, "w", "writer.md").content).toContain('You are the agent "writer". Its own instructions, which hold besides the above:\nWrite in the past tense.\n\nTask:\nw');
    // task-only (the default), whatever --delegate says.
    expect(tester).toEqual({ ...parent2, messages: [system, task(4, "run the tests", "tester.md")] });
    // full: every message before the call; the same tool definitions, byte for byte.
    expect(explorer1).toEqual({ ...parent3, messages: [...parent3.messages, task(6, "find the version", "explorer.md")] });
    expect(JSON.stringify(explorer1.tools)).toBe(JSON.stringify(parent1.tools));
    // A tool outside its list answers with a refusal, and the file is untouched.
    expect(explorer2.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: expect.any(String),
      content: "[#7] Error: the agent explorer may not use search_replace: its tools are read_file, grep. Do the task with those, or answer with what you found.",
    });
    expect(await readFile(join(project, "notes.txt"), "utf8")).toBe("release 1.2\n");
    expect(parent4.messages.at(-1)).toMatchObject({ role: "tool", content: "[#8] the version is 1.2" });

    // The terminal, --json's by_agent, record.json and delegations.jsonl name the agent.
    expect(result.stderr).toContain("⇢ delegating (writer, no-tools) #1: write the notes");
    expect(result.stderr).toContain("⇢ delegating (tester, task-only) #2: run the tests");
    const named = [
      { delegation: 1, mode: "no-tools", agent_name: "writer" },
      { delegation: 2, mode: "task-only", agent_name: "tester" },
      { delegation: 3, mode: "full", agent_name: "explorer" },
    ];
    const json = JSON.parse(result.stdout);
    expect(json.usage.by_agent.slice(1).map(({ delegation, mode, agent_name }: Record<string, unknown>) => ({ delegation, mode, agent_name }))).toEqual(named);
    const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
    expect(record.usage.by_agent.slice(1)).toEqual(json.usage.by_agent.slice(1));
    const delegations = await lines(join(out, "raw", "delegations.jsonl"));
    expect(delegations.map(({ delegation, mode, agent_name }) => ({ delegation, mode, agent_name }))).toEqual(named);

    // sessions show lists each child by its agent.
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((text) => (printed.push(String(text)), true));
    try {
      await runSessionsCommand({ kind: "sessions", action: "show", ids: [json.session_id], json: false, cwd: project } as Parameters<typeof runSessionsCommand>[0]);
    } finally {
      spy.mockRestore();
    }
    const shown = printed.join("");
    expect(shown).toMatch(/^ {2}#1 {2}writer, no-tools +completed/m);
    expect(shown).toMatch(/^ {2}#3 {2}explorer, full +completed/m);
    expect(shown).toContain("── subagent 2 (tester, task-only) ── completed");
  });

  it("an agent's max-steps ends its child, and the parent is told which budget did", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [call("delegate_task", { task: "look around", agent: "brief" })] }, { content: "Looking.", tool_calls: [call("read_file", { path: "notes.txt" })] }, { content: "ok" }],
    });
    await runWithAgent("brief.md", "---\ndescription: Answers in one step\nmax-steps: 1\n---\n");
    const parentLast = sim.requests[2]!.body as ChatRequest;
    expect(parentLast.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "[#4] Looking.\n\n[the subagent was stopped by its step budget of 1 model request (the max-steps of its agent file) before it finished]",
    });
  });
});

it("an agent with read-only access cannot edit, though the session can", async () => {
  sim = await startSimulator({
    script: [
      { tool_calls: [call("delegate_task", { task: "fix the version", agent: "reader" })] },
      { tool_calls: [call("search_replace", { path: "notes.txt", old_text: "1.2", new_text: "1.3" })] },
      { content: "could not edit" },
      { content: "ok" },
    ],
  });
  const project = await runWithAgent("reader.md", "---\ndescription: Reads only\naccess: read-only\n---\n");
  expect((sim.requests[2]!.body as ChatRequest).messages.at(-1)).toMatchObject({ role: "tool", content: "[#3] Error: read-only access: edits are refused; report the change needed instead" });
  expect(await readFile(join(project, "notes.txt"), "utf8")).toBe("release 1.2\n");
});

it("the agent file docs/extending.md shows is a valid agent", async () => {
  const doc = await readFile(join(import.meta.dirname, "..", "..", "..", "docs", "extending.md"), "utf8");
  const example = /## Named agents[\s\S]*?```markdown\n([\s\S]*?)```/.exec(doc)![1]!;
  expect(parseAgentFile("test-writer", example)).toEqual({
    name: "test-writer",
    description: "Writes unit tests for the code the task names, and runs them",
    mode: "task-only",
    tools: ["read_file", "search_replace", "run_command", "grep"],
    model: "deepseek-flash",
    maxSteps: 12,
    access: "edit",
    instructions: "Put each test beside the module it tests, and report the command that runs them.",
  });
});

it("with agent files and no --delegate, delegate_task is offered with its agents, and a plain delegation sees only its task", async () => {
  sim = await startSimulator({
    script: [{ tool_calls: [call("delegate_task", { task: "count the releases" })] }, { content: "one release" }, { content: "done" }],
  });
  const project = await tempProject();
  await mkdir(join(project, ".hel", "agents"), { recursive: true });
  await writeFile(join(project, ".hel", "agents", "brief.md"), "---\ndescription: Answers in one step\n---\n");
  const result = await runInProcess({ args: ["-C", project, "go"], baseUrl: sim.url });
  expect(result.code).toBe(0);
  const [parent, child] = sim.requests.map((r) => r.body as ChatRequest) as [ChatRequest, ChatRequest];
  const delegate = parent.tools!.find((t) => t.function.name === "delegate_task")!;
  expect((delegate.function.parameters as { properties: Record<string, { enum?: string[] }> }).properties.agent!.enum).toEqual(["brief"]);
  // task-only: the child's conversation is its role note and the task, nothing of the parent's.
  expect(child.messages.map((m) => m.role)).toEqual(["system", "user"]);
  expect(String(child.messages[1]!.content)).toContain("count the releases");
  // Without agent files nothing of delegation is offered.
  const plain = await tempProject();
  sim.push({ content: "hi" });
  await runInProcess({ args: ["-C", plain, "go"], baseUrl: sim.url });
  expect((sim.requests.at(-1)!.body as ChatRequest).tools!.map((t) => t.function.name)).not.toContain("delegate_task");
});
