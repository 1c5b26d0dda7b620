// What a DeepSeek user sees of the repairs and the spend controls, from hel run in this process as the
// command runs it (helpers/conversation.ts), against the simulator: a repair is one line on stderr and
// counts in --json's usage.repairs; an empty answer twice and a request past --max-cost end the turn
// with their own exit reasons and a line saying why; --child-model (flag or config) is the model of
// task-only delegations and reviews only.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());
const bodies = () => sim.requests.map((r) => r.body as ChatRequest);

it("tool calls written as text: one repair line on stderr, usage.repairs in --json, and the call runs", async () => {
  const project = await tempProject();
  await writeFile(join(project, "a.txt"), "hello\n");
  sim = await startSimulator({
    script: [{ content: "Reading.", tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.txt" }) }], markup: { block: "tool_calls" } }, { content: "It says hello." }],
  });
  const result = await runHelInProcess({ args: ["-C", project, "--json", "what does a.txt say"], baseUrl: sim.url });
  expect(result.code).toBe(0);
  const json = JSON.parse(result.stdout);
  expect(json).toMatchObject({ answer: "It says hello.", exit_reason: "completed", usage: { requests: 2, repairs: 1 } });
  expect(result.stderr.split("\n").filter((l) => l.includes("repaired"))).toEqual(["↻ repaired: read_file written as text, made into tool calls"]);
  expect(bodies()[1]!.messages[2]).toMatchObject({ role: "assistant", content: "Reading.", tool_calls: [{ function: { name: "read_file", arguments: '{"path":"a.txt"}' } }] });
  expect(bodies()[1]!.messages[3]!.content).toMatch(/^\[#2\] [^]*hello/);
});

it("an empty answer twice: exit_reason empty, status 1, and one line saying so", async () => {
  const project = await tempProject();
  sim = await startSimulator({ script: [{ content: null }, { content: "" }] });
  const result = await runHelInProcess({ args: ["-C", project, "--json", "say something"], baseUrl: sim.url });
  expect(result.code).toBe(1);
  expect(JSON.parse(result.stdout)).toMatchObject({ answer: null, exit_reason: "empty", usage: { requests: 2, repairs: 1 } });
  expect(result.stderr).toContain("hel: the model answered nothing, twice — send the instruction again, or put it another way\n");
  expect(bodies()[1]).toEqual(bodies()[0]);
});

describe("--max-cost", () => {
  // A dollar per million prompt tokens and nothing else: the spend is the prompt tokens sent, in millionths.
  const prices = { models: { "deepseek-flash": { cache_hit: 1, cache_miss: 1, output: 0 } } };

  it("ends the turn with exit_reason budget before the request that would pass it, and says so in one line", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "hello\n");
    const table = join(project, ".hel-prices.json");
    await writeFile(table, JSON.stringify(prices));
    const script = () => [{ tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.txt" }) }] }, { content: "never sent" }];
    const args = ["-C", project, "--tools", "read_file", "--json"];
    // A run without a limit measures the first prompt; the limit is then half as much again, so the
    // first request fits and the second, whose prompt holds the first's, does not.
    sim = await startSimulator({ script: script() });
    await runHelInProcess({ args: [...args, "read a.txt"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    const spent = sim.requests[0]!.usage!.prompt_tokens / 1e6;
    const limit = (spent * 1.5).toFixed(6);
    await sim.close();
    sim = await startSimulator({ script: script() });
    const result = await runHelInProcess({ args: [...args, "--max-cost", limit, "read a.txt"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]!.usage!.prompt_tokens / 1e6).toBe(spent);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ answer: null, exit_reason: "budget", usage: { requests: 1, cost_usd: spent } });
    expect(result.stderr).toMatch(
      new RegExp(
        `\\nhel: stopped before a request whose ~\\d+ input tokens \\(\\$0\\.00\\d\\d uncached\\) and 4096 output tokens would take this session's spend of \\$${spent.toFixed(4).replace(".", "\\.")} past --max-cost \\$${Number(limit).toFixed(4).replace(".", "\\.")} — raise --max-cost to go on\\n`,
      ),
    );
  });

  it("holds hel's own in-band requests to it too: a compaction's summary request past the limit is not sent", async () => {
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "hello\n".repeat(400));
    const table = join(project, ".hel-prices.json");
    await writeFile(table, JSON.stringify(prices));
    const script = () => [{ tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.txt" }) }] }, { content: "never sent" }];
    // Compaction is due before the second request; the limit lets the first request through and no other.
    const args = ["-C", project, "--tools", "read_file", "--json", "--compact-at", "200"];
    sim = await startSimulator({ script: script() });
    await runHelInProcess({ args: [...args, "read a.txt"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    const limit = ((sim.requests[0]!.usage!.prompt_tokens / 1e6) * 1.5).toFixed(6);
    await sim.close();
    sim = await startSimulator({ script: script() });
    const result = await runHelInProcess({ args: [...args, "--max-cost", limit, "read a.txt"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    expect(sim.requests).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "budget" });
  });

  it("counts what the session's earlier runs spent: a resume past the limit sends nothing", async () => {
    const project = await tempProject();
    const table = join(project, ".hel-prices.json");
    await writeFile(table, JSON.stringify(prices));
    sim = await startSimulator({ script: [{ content: "first" }, { content: "never sent" }] });
    const first = await runHelInProcess({ args: ["-C", project, "--tools", "none", "hello"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    const id = /resume with: hel --resume (\S+)/.exec(first.stderr)![1]!;
    const spent = sim.requests[0]!.usage!.prompt_tokens / 1e6;
    // Enough for one more request of this size on its own, not on top of what the first run spent.
    const limit = (spent * 1.5).toFixed(6);
    const again = await runHelInProcess({ args: ["-C", project, "--tools", "none", "--json", "--max-cost", limit, "--resume", id, "again"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    expect(sim.requests).toHaveLength(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ exit_reason: "budget" });
  });

  it("from the config file, like the flag", async () => {
    const project = await tempProject();
    await mkdir(join(project, ".hel"), { recursive: true });
    await writeFile(join(project, ".hel", "config.json"), JSON.stringify({ "max-cost": 0.000001 }));
    const table = join(project, ".hel-prices.json");
    await writeFile(table, JSON.stringify(prices));
    sim = await startSimulator({ script: [{ content: "never sent" }] });
    const result = await runHelInProcess({ args: ["-C", project, "--json", "hi"], baseUrl: sim.url, env: { HEL_PRICES: table } });
    expect(sim.requests).toHaveLength(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_reason: "budget", usage: { requests: 0 } });
  });
});

describe("--child-model", () => {
  const delegate = { tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "Say which files exist." }) }] };

  it("(config child-model) is the model of a task-only delegation; the parent keeps its own", async () => {
    const project = await tempProject();
    await mkdir(join(project, ".hel"), { recursive: true });
    await writeFile(join(project, ".hel", "config.json"), JSON.stringify({ "child-model": "deepseek-v4-pro" }));
    sim = await startSimulator({ script: [delegate, { content: "none" }, { content: "done" }] });
    const result = await runHelInProcess({ args: ["-C", project, "--delegate", "task-only", "list the files"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(bodies().map((b) => b.model)).toEqual(["deepseek-flash", "deepseek-v4-pro", "deepseek-flash"]);
  });

  it("is the model of a review, under any delegation mode", async () => {
    const project = await tempProject();
    await writeFile(join(project, "calc.py"), "def add(a, b):\n    return a - b\n");
    const review = { verdict: "correct", findings: [] };
    sim = await startSimulator({
      script: [
        { tool_calls: [{ name: "search_replace", arguments: JSON.stringify({ path: "calc.py", old_text: "return a - b", new_text: "return a + b" }) }] },
        { tool_calls: [{ name: "review_changes", arguments: "{}" }] },
        { content: JSON.stringify(review) },
        { content: "done" },
      ],
    });
    const result = await runHelInProcess({ args: ["-C", project, "--delegate", "full", "--child-model", "deepseek-v4-pro", "fix add"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(bodies().map((b) => b.model)).toEqual(["deepseek-flash", "deepseek-flash", "deepseek-v4-pro", "deepseek-flash"]);
  });

  it("leaves a full delegation on the parent's model, which shares its prefix", async () => {
    const project = await tempProject();
    sim = await startSimulator({ script: [delegate, { content: "none" }, { content: "done" }] });
    const result = await runHelInProcess({ args: ["-C", project, "--delegate", "full", "--child-model", "deepseek-v4-pro", "list the files"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(bodies().map((b) => b.model)).toEqual(["deepseek-flash", "deepseek-flash", "deepseek-flash"]);
  });
});
