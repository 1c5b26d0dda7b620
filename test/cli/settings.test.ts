// Settings that stick: the user's config file and the project's, under the flags and the environment,
// and what a resumed session keeps of its own. hel run in this process as the command runs it
// (helpers/conversation.ts), against the simulator, with real config files.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { sessionIdOf } from "../helpers/simulators.js";

let sim: Simulator;
afterEach(async () => sim?.close());

/** A project, a config home, and a run of hel in it with that config home. */
async function setUp(user: unknown, project: unknown) {
  const dir = await tempProject();
  const configHome = await tempProject();
  if (user !== undefined) {
    await mkdir(join(configHome, "hel"));
    await writeFile(join(configHome, "hel", "config.json"), typeof user === "string" ? user : JSON.stringify(user));
  }
  if (project !== undefined) {
    await mkdir(join(dir, ".hel"));
    await writeFile(join(dir, ".hel", "config.json"), typeof project === "string" ? project : JSON.stringify(project));
  }
  const run = (args: string[], env: Record<string, string | undefined> = {}) => runHelInProcess({ args: ["-C", dir, ...args], baseUrl: sim.url, env: { XDG_CONFIG_HOME: configHome, ...env } });
  return { dir, configHome, run };
}

/** What the request said of the settings a config file may give. */
function sent(index: number) {
  const body = sim.requests[index]!.body as ChatRequest & { reasoning_effort?: string };
  return { model: body.model, effort: body.thinking?.type === "disabled" ? "none" : body.reasoning_effort, tools: body.tools?.map((t) => t.function.name) };
}

describe("config files", () => {
  it("flags win over the project's file, which wins over the user's", async () => {
    sim = await startSimulator({ policy: "echo" });
    const { run } = await setUp({ model: "deepseek-v4-pro", effort: "low", access: "read-only" }, { effort: "none" });
    expect((await run(["one"])).code).toBe(0);
    expect(sent(0)).toEqual({ model: "deepseek-v4-pro", effort: "none", tools: ["read_file", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo", "job_output", "job_kill"] });
    expect((await run(["--effort", "max", "--access", "edit", "two"])).code).toBe(0);
    expect(sent(1)).toEqual({ model: "deepseek-v4-pro", effort: "max", tools: ["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo", "job_output", "job_kill"] });
  });

  it("HEL_MODEL wins over the files; the base URL can come from a file", async () => {
    sim = await startSimulator({ policy: "echo" });
    const { run } = await setUp({ model: "deepseek-v4-pro", "base-url": sim.url }, undefined);
    const result = await run(["hi"], { HEL_BASE_URL: undefined, HEL_MODEL: "deepseek-flash" });
    expect(result.code).toBe(0);
    expect(sent(0).model).toBe("deepseek-flash");
  });

  const bad: [string, unknown, RegExp][] = [
    [
      "an unknown key",
      { model: "deepseek-flash", colour: "red" },
      /has an unknown key "colour" — the keys are model, effort, access, network, auto-fold, compact-at, child-max-steps, child-max-tokens, base-url, child-model, max-cost, checkpoint-max-mb, mcp-servers, mcp-timeout, approval, allow, hooks, provider, child-isolation, memory, context-window$/,
    ],
    ["an allow that is not a list", { allow: "npm test" }, /has a bad value for "allow": must be a list of command prefixes, such as \["git fetch"\] — fix it or remove the key$/],
    ["an approval hel does not know", { approval: "always" }, /has a bad value for "approval": must be one of on-request, never — fix it or remove the key$/],
    ["a bad value", { effort: "medium" }, /has a bad value for "effort": must be one of none, low, high, max — fix it or remove the key$/],
    ["a number where a name goes", { model: 3 }, /has a bad value for "model": must be a string — fix it or remove the key$/],
    ["a compact-at below 0", { "compact-at": -1 }, /has a bad value for "compact-at": must be at least 0 — fix it or remove the key$/],
    ["a child-max-steps that is not whole", { "child-max-steps": 2.5 }, /has a bad value for "child-max-steps": must be a whole number — fix it or remove the key$/],
    ["something other than an object", [1], /must hold a JSON object — with keys from model, /],
    ["text that is not JSON", "{model:", /is not valid JSON \(.*\) — fix it or remove it$/],
  ];

  it.each(bad)("%s in the project's file is a usage error naming the file", async (_name, content, message) => {
    sim = await startSimulator({ policy: "echo" });
    const { dir, run } = await setUp(undefined, content);
    const result = await run(["hi"]);
    expect(result.code).toBe(2);
    const line = result.stderr.trimEnd();
    expect(line.split("\n")).toHaveLength(1);
    expect(line.startsWith(`hel: the config file ${join(dir, ".hel", "config.json")} `)).toBe(true);
    expect(line).toMatch(message);
    expect(sim.requests).toHaveLength(0);
  });

  it("a bad user file is named too, and compact-at is accepted", async () => {
    sim = await startSimulator({ policy: "echo" });
    const { configHome, run } = await setUp({ access: "none" }, { "compact-at": 0 });
    const result = await run(["hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`hel: the config file ${join(configHome, "hel", "config.json")} has a bad value for "access": must be one of read-only, edit, full — fix it or remove the key\n`);
  });
});

describe("a project's budgets and step limits", () => {
  // $5,000 per million input tokens: any first request costs several dollars, and output is free, so
  // whether it is sent tells which --max-cost the run kept.
  const prices = { models: { "deepseek-flash": { cache_hit: 5000, cache_miss: 5000, output: 0 } } };
  async function withPrices(user: unknown, project: unknown) {
    const set = await setUp(user, project);
    const table = join(set.configHome, "prices.json");
    await writeFile(table, JSON.stringify(prices));
    return { ...set, run: (args: string[]) => set.run(["--json", ...args], { HEL_PRICES: table }) };
  }

  it("an untrusted project's higher max-cost does not raise the user's: ignored, with one line naming it", async () => {
    sim = await startSimulator({ policy: "echo" });
    const { dir, run } = await withPrices({ "max-cost": 1 }, { "max-cost": 1000, "child-max-steps": 1000, "compact-at": 500 });
    const result = await run(["hi"]);
    expect(sim.requests).toHaveLength(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "budget" });
    const lines = result.stderr.split("\n").filter((l) => l.includes("ignored this project"));
    expect(lines).toEqual([
      `hel: ignored this project's max-cost 1000, child-max-steps 1000 (${join(dir, ".hel", "config.json")}): a project may lower a budget or step limit, not raise yours (max-cost 1, child-max-steps 30) — set it in your own config or pass the flag`,
    ]);
  });

  it("a lower one applies, and so does one where the user set no limit; a flag wins over the project", async () => {
    sim = await startSimulator({ policy: "echo" });
    const lower = await withPrices({ "max-cost": 1000 }, { "max-cost": 1 });
    const lowered = await lower.run(["hi"]);
    expect(JSON.parse(lowered.stdout)).toMatchObject({ exit_reason: "budget" });
    expect(lowered.stderr).not.toContain("ignored this project");
    const none = await withPrices(undefined, { "max-cost": 1 });
    expect(JSON.parse((await none.run(["hi"])).stdout)).toMatchObject({ exit_reason: "budget" });
    expect(sim.requests).toHaveLength(0);
    const flagged = await withPrices({ "max-cost": 1 }, { "max-cost": 1 });
    const result = await flagged.run(["--max-cost", "1000", "hi"]);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "completed" });
    expect(result.stderr).not.toContain("ignored this project");
    expect(sim.requests).toHaveLength(1);
  });

  it("a project's higher child-max-steps leaves the child at the user's", async () => {
    const delegate = { tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "Read a.txt." }) }] };
    const read = { tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.txt" }) }] };
    sim = await startSimulator({ script: [delegate, read, { content: "done" }] });
    const { dir, run } = await setUp({ "child-max-steps": 1 }, { "child-max-steps": 50 });
    await writeFile(join(dir, "a.txt"), "hello\n");
    const result = await run(["--delegate", "task-only", "read a.txt with a subagent"]);
    expect(result.code).toBe(0);
    const last = sim.requests.at(-1)!.body as ChatRequest;
    expect(last.messages.at(-1)!.content).toContain("stopped by its step budget of 1 model request");
  });
});

describe("a resumed session", () => {
  it("keeps its model and effort over the config file's; a flag changes them", async () => {
    sim = await startSimulator({ policy: "echo" });
    const { dir, run } = await setUp(undefined, undefined);
    const first = await run(["--model", "deepseek-v4-pro", "--effort", "low", "one"]);
    const id = sessionIdOf(first.stderr)!;
    await writeFile(join(dir, ".hel", "config.json"), JSON.stringify({ model: "deepseek-flash", effort: "max" }));

    const kept = await run(["--resume", id, "two"]);
    expect(kept.code).toBe(0);
    expect(kept.stderr).not.toMatch(/resuming session .* with/);
    expect(sent(1)).toMatchObject({ model: "deepseek-v4-pro", effort: "low" });
    // Without a flag HEL_MODEL is a default too: the session keeps its own.
    await run(["-c", "three"], { HEL_MODEL: "deepseek-flash" });
    expect(sent(2)).toMatchObject({ model: "deepseek-v4-pro", effort: "low" });

    const changed = await run(["-c", "--effort", "none", "--model", "deepseek-flash", "four"]);
    expect(changed.stderr).toMatch(/resuming session \S+ with model deepseek-flash \(was deepseek-v4-pro\)/);
    expect(sent(3)).toMatchObject({ model: "deepseek-flash", effort: "none" });
    expect((sim.requests[3]!.body as ChatRequest).max_tokens).toBe(8192);
    // The session now keeps what the flags set.
    await run(["-c", "five"]);
    expect(sent(4)).toMatchObject({ model: "deepseek-flash", effort: "none" });
  });
});
