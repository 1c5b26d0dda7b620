// Responses without usage, as some OpenAI-compatible servers send them, against the simulator: each is
// a counted request whose tokens are estimated and marked so (--json's usage and by_agent, record.json,
// /cost), priced from the estimate when the model has a price, and counted by --max-cost; a usage with
// only prompt_tokens_details.cached_tokens gives the cache hits.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess, runInProcess } from "../helpers/conversation.js";
import { simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

const sim = simulators();
// $1, $2 and $4 per million tokens: cache hit, cache miss, output.
const PRICES = { models: { "deepseek-flash": { cache_hit: 1, cache_miss: 2, output: 4 } } };

async function pricesFile(prices: unknown): Promise<string> {
  const file = join(await tempProject(), "prices.json");
  await writeFile(file, JSON.stringify(prices));
  return file;
}

it("a response without usage is one request, its tokens estimated and marked so in --json, by_agent and record.json, priced from the estimate; unpriced, its cost is unknown", async () => {
  const s = await sim({ script: [{ content: "hi", usage: "omitted" }] });
  const project = await tempProject();
  const out = await tempProject();
  const run = await runHelInProcess({ args: ["-C", project, "--json", "--record", out, "--model", "deepseek-flash", "hi"], baseUrl: s.url, env: { HEL_PRICES: await pricesFile(PRICES) } });
  expect(run.code).toBe(0);
  const usage = JSON.parse(run.stdout).usage;
  const counted = s.requests[0]!.usage!;
  expect(usage).toMatchObject({ requests: 1, estimated_requests: 1, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: usage.prompt_tokens });
  expect(Math.abs(usage.prompt_tokens - counted.prompt_tokens) / counted.prompt_tokens).toBeLessThan(0.1);
  expect(usage.completion_tokens).toBeGreaterThan(0);
  expect(usage.cost_usd).toBeCloseTo((usage.prompt_tokens * 2 + usage.completion_tokens * 4) / 1e6, 9);
  expect(usage.by_agent[0]).toMatchObject({ agent: "parent", requests: 1, estimated_requests: 1 });
  const record = JSON.parse(await readFile(join(out, "record.json"), "utf8"));
  expect(record.usage.by_agent).toEqual(usage.by_agent);
  expect(record.usage.total).toMatchObject({ requests: 1, estimated_requests: 1 });

  s.push({ content: "hi", usage: "omitted" });
  const unpriced = await runHelInProcess({ args: ["-C", await tempProject(), "--json", "--model", "deepseek-flash", "hi"], baseUrl: s.url, env: { HEL_PRICES: await pricesFile({ models: {} }) } });
  expect(unpriced.code).toBe(0);
  expect(JSON.parse(unpriced.stdout).usage).toMatchObject({ requests: 1, estimated_requests: 1, cost_usd: null });
});

it("a usage with only prompt_tokens_details.cached_tokens gives the cache hits; a response with DeepSeek's figures is not marked estimated", async () => {
  const s = await sim({ script: [{ content: "one" }, { content: "two", usage: "openai" }] });
  const run = await runInProcess({ args: ["-C", await tempProject(), "--json", "--effort", "none"], input: "first\nsecond\n", baseUrl: s.url });
  expect(run.code).toBe(0);
  const [first, second] = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).usage);
  expect(first).not.toHaveProperty("estimated_requests");
  const counted = s.requests[1]!.usage!;
  expect(counted.prompt_cache_hit_tokens).toBeGreaterThan(0);
  expect(second).toMatchObject({ requests: 1, prompt_tokens: counted.prompt_tokens, prompt_cache_hit_tokens: counted.prompt_cache_hit_tokens, prompt_cache_miss_tokens: counted.prompt_cache_miss_tokens });
  expect(second).not.toHaveProperty("estimated_requests");
});

it("--max-cost counts a response without usage: the next request may write fewer output tokens by about its estimated cost", async () => {
  const s = await sim({
    script: [
      { content: "one", usage: "omitted" },
      { content: "two", usage: "omitted" },
    ],
  });
  const run = await runInProcess({
    args: ["-C", await tempProject(), "--effort", "none", "--max-output-tokens", "30000", "--max-cost", "0.05"],
    input: "first\nsecond\n",
    baseUrl: s.url,
    env: { HEL_PRICES: await pricesFile(PRICES) },
  });
  expect(run.code).toBe(0);
  const [a, b] = s.requests.map((r) => (r.body as ChatRequest).max_tokens!);
  // The first answer's estimated prompt (some 1,800 tokens at $2) is worth some 900 output tokens at $4;
  // uncounted, the second request would lose only what its longer prompt costs.
  expect(a).toBeLessThan(30_000);
  expect(a! - b!).toBeGreaterThan(500);
});
