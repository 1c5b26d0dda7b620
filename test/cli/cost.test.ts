// Cost per agent end to end, hel run in this process as the command runs it (helpers/conversation.ts)
// against the simulator: --json's by_agent, stderr's end-of-instruction line, record.json, `hel sessions
// show`, and HEL_PRICES replacing the table (a bad file is a usage error).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Usage } from "../../src/wire/messages.js";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("end to end", () => {
  // Round figures make the hand computation easy to follow: $1, $2 and $4 per million tokens.
  const PRICES = { models: { "deepseek-flash": { cache_hit: 1, cache_miss: 2, output: 4 } } };
  const dollars = (u: Usage) => (u.prompt_cache_hit_tokens * 1 + (u.prompt_tokens - u.prompt_cache_hit_tokens) * 2 + u.completion_tokens * 4) / 1e6;
  const figures = (...us: Usage[]) => ({
    requests: us.length,
    prompt_tokens: us.reduce((s, u) => s + u.prompt_tokens, 0),
    completion_tokens: us.reduce((s, u) => s + u.completion_tokens, 0),
    prompt_cache_hit_tokens: us.reduce((s, u) => s + u.prompt_cache_hit_tokens, 0),
    prompt_cache_miss_tokens: us.reduce((s, u) => s + u.prompt_cache_miss_tokens, 0),
    cost_usd: expect.closeTo(
      us.reduce((s, u) => s + dollars(u), 0),
      9,
    ),
  });
  const comma = (n: number) => n.toLocaleString("en-US");

  it("--json's by_agent, stderr's split line, record.json and `hel sessions show` give each agent's tokens and dollars, from HEL_PRICES", async () => {
    sim = await startSimulator({
      script: [{ tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "Say which files exist." }) }] }, { content: "Only README.md." }, { content: "There is only README.md." }],
    });
    const project = await tempProject();
    const out = await tempProject();
    const prices = join(out, "prices.json");
    await writeFile(prices, JSON.stringify(PRICES));
    const result = await runHelInProcess({ args: ["-C", project, "--delegate", "task-only", "--json", "--record", out, "list the files"], baseUrl: sim.url, env: { HEL_PRICES: prices } });
    expect(result.code).toBe(0);
    const [p1, child, p2] = sim.requests.map((r) => r.usage!);
    const json = JSON.parse(result.stdout);
    expect(json.usage).toEqual({
      ...figures(p1!, child!, p2!),
      by_agent: [
        { agent: "parent", ...figures(p1!, p2!) },
        { agent: "child", delegation: 1, mode: "task-only", ...figures(child!) },
      ],
      repairs: 0,
    });

    // stderr: the instruction's figures and dollars, then the parent's share and the subagents'.
    const total = figures(p1!, child!, p2!);
    const parentDollars = dollars(p1!) + dollars(p2!);
    const childDollars = dollars(child!);
    const ratio = Math.round((total.prompt_cache_hit_tokens / total.prompt_tokens) * 100);
    const tokens = (...us: Usage[]) => comma(us.reduce((s, u) => s + u.prompt_tokens + u.completion_tokens, 0));
    expect(result.stderr).toContain(
      `3 requests · ${comma(total.prompt_tokens)} input tokens (${comma(total.prompt_cache_hit_tokens)} cached, ${ratio}%) · ${comma(total.completion_tokens)} output · $${(parentDollars + childDollars).toFixed(4)}` +
        ` (parent $${parentDollars.toFixed(4)}, ${tokens(p1!, p2!)} tokens; 1 subagent $${childDollars.toFixed(4)}, ${tokens(child!)} tokens) · context ~`,
    );

    const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
    expect(record.usage.child).toEqual(figures(child!));
    expect(record.usage.by_agent).toEqual(json.usage.by_agent);
    const delegation = JSON.parse(await readFile(join(out, "raw", "delegations.jsonl"), "utf8"));
    expect(delegation).toMatchObject({ delegation: 1, kind: "delegate", mode: "task-only", cost_usd: expect.closeTo(childDollars, 9) });

    const show = await runHelInProcess({ args: ["-C", project, "sessions", "show", json.session_id] });
    expect(show.stdout).toContain(`subagents (costs are estimates)\n  #1  task-only  completed  1 request  ${tokens(child!)} tokens  $${childDollars.toFixed(4)}  Say which files exist.\n`);
    expect(show.stdout).toContain(`── subagent 1 (task-only) ── completed, 1 request, ${tokens(child!)} tokens, $${childDollars.toFixed(4)}`);
    const shown = JSON.parse((await runHelInProcess({ args: ["-C", project, "sessions", "show", "--json", json.session_id] })).stdout);
    expect(shown.child_transcripts[0]).toMatchObject({ kind: "delegate", mode: "task-only", cost_usd: expect.closeTo(childDollars, 9) });
  });

  it("without subagents the line has no split; a model without a price shows no dollars", async () => {
    sim = await startSimulator({ script: [{ content: "hi" }] });
    const project = await tempProject();
    const result = await runHelInProcess({ args: ["-C", project, "--json", "--model", "deepseek-flash", "hi"], baseUrl: sim.url, env: { HEL_PRICES: undefined } });
    const line = result.stderr.split("\n").find((l) => l.includes("context ~"))!;
    expect(line).toMatch(/^1 request · [\d,]+ input tokens \([\d,]+ cached, \d+%\) · [\d,]+ output · \$0\.\d{4} · context ~[\d,]+ tokens$/);
    expect(JSON.parse(result.stdout).usage.cost_usd).toBeGreaterThan(0);

    const project2 = await tempProject();
    const prices = join(await tempProject(), "prices.json");
    await writeFile(prices, JSON.stringify({ models: {} }));
    sim.push({ content: "hi" });
    const unpriced = await runHelInProcess({ args: ["-C", project2, "--json", "hi"], baseUrl: sim.url, env: { HEL_PRICES: prices } });
    expect(unpriced.code).toBe(0);
    expect(JSON.parse(unpriced.stdout).usage.cost_usd).toBeNull();
    expect(unpriced.stderr).toMatch(/· [\d,]+ output · context ~/);
  });
});

describe("a bad HEL_PRICES is a usage error: one line, exit 2, no request sent", () => {
  it.each([
    ["a missing file", null, /^hel: HEL_PRICES: .*missing\.json is not a readable JSON file \(ENOENT\) — fix the file \(the README shows the format\) or unset HEL_PRICES$/],
    ["a file that is not JSON", "{ models: ", /^hel: HEL_PRICES: .*\.json is not a readable JSON file \(.*JSON.*\) — fix the file/],
    ["a negative price", JSON.stringify({ models: { "deepseek-flash": { cache_hit: -1, cache_miss: 1, output: 1 } } }), /^hel: HEL_PRICES: .*\.json: models\.deepseek-flash\.cache_hit: .*>=0 — fix the file/],
    ["a misspelt field", JSON.stringify({ models: { "deepseek-flash": { cache_hit: 1, cache_miss: 1, ouput: 1 } } }), /^hel: HEL_PRICES: .*\.json: models\.deepseek-flash\.output: .* — fix the file/],
    ["a bad peak rule", JSON.stringify({ models: {}, peak: { multiplier: 2, weekdays: [7], hours: [] } }), /^hel: HEL_PRICES: .*\.json: peak\.weekdays\.0: .* — fix the file/],
  ])("%s", async (_name, content, message) => {
    sim = await startSimulator({ script: [{ content: "hi" }] });
    const project = await tempProject();
    const file = join(project, content === null ? "missing.json" : "prices.json");
    if (content !== null) await writeFile(file, content);
    const result = await runHelInProcess({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { HEL_PRICES: file } });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(message);
    expect(sim.requests).toHaveLength(0);
  });
});
