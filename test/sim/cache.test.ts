import { afterEach, describe, expect, it } from "vitest";
import { PrefixCache } from "../../sim/cache.js";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { promptSegments, tokenizeSegments, type TokenSeq } from "../../sim/template.js";
import type { ChatRequest, Usage } from "../../src/wire/messages.js";
import { KEY, post, READ_FILE, SEARCH_REPLACE, system, user } from "../helpers/sim.js";

/** A token sequence of `n` one-character tokens (letters cycle), enough to drive the cache directly. */
function seq(n: number, offset = 0): TokenSeq {
  let text = "";
  const ends: number[] = [];
  for (let i = 0; i < n; i++) {
    text += String.fromCharCode(97 + ((i + offset) % 26));
    ends.push(i + 1);
  }
  return { text, ends };
}

describe("PrefixCache (unit)", () => {
  it("an exact repeat hits floor(n/64)*64", () => {
    const c = new PrefixCache(64);
    const s = seq(200);
    expect(c.hit("k", c.blockHashes(s))).toBe(0);
    c.store("k", c.blockHashes(s));
    expect(c.hit("k", c.blockHashes(s))).toBe(192);
  });

  it("a unit shorter than one block stores nothing", () => {
    const c = new PrefixCache(64);
    c.store("k", c.blockHashes(seq(63)));
    expect(c.blockHashes(seq(63))).toEqual([]);
    expect(c.hit("k", c.blockHashes(seq(130)))).toBe(0);
  });

  it("hits only the leading blocks that match, and stops at the first difference", () => {
    const c = new PrefixCache(64);
    c.store("k", c.blockHashes(seq(256)));
    const changed = seq(256);
    // Change one token in the third block: blocks 0 and 1 still hit, nothing after.
    changed.text = changed.text.slice(0, 150) + "#" + changed.text.slice(151);
    expect(c.hit("k", c.blockHashes(changed))).toBe(128);
    // A change in the first block loses everything, even if later text is equal.
    const first = seq(256);
    first.text = "#" + first.text.slice(1);
    expect(c.hit("k", c.blockHashes(first))).toBe(0);
  });

  it("spaces are isolated", () => {
    const c = new PrefixCache(64);
    c.store("a", c.blockHashes(seq(128)));
    expect(c.hit("a", c.blockHashes(seq(128)))).toBe(128);
    expect(c.hit("b", c.blockHashes(seq(128)))).toBe(0);
  });

  it("reuses known hashes for an extension and gets the same result", () => {
    const c = new PrefixCache(16);
    const a = seq(40);
    const b = seq(100);
    expect(c.blockHashes(b, c.blockHashes(a))).toEqual(c.blockHashes(b));
  });
});

// -------------------------------------------------------------------------------- through the server

const LONG_SYSTEM =
  "You are hel, a coding agent. Work in the project directory, read before you edit, keep changes minimal, " +
  "and answer with exactly what was asked. ".repeat(1) +
  "Project rules: use two-space indentation; never touch generated files; run no commands. ".repeat(6);

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function usageOf(body: unknown, key = KEY): Promise<Usage & { message: { content: string | null } }> {
  const r = await post(sim!.url, body, { key });
  expect(r.status).toBe(200);
  const j = r.json as { usage: Usage; choices: { message: { content: string | null } }[] };
  return { ...j.usage, message: j.choices[0]!.message };
}

const base = (messages: ChatRequest["messages"], tools: ChatRequest["tools"] = [READ_FILE, SEARCH_REPLACE]): ChatRequest => ({
  model: "deepseek-flash",
  messages,
  tools,
  thinking: { type: "disabled" },
  max_tokens: 4096,
});

describe("prefix cache via usage", () => {
  it("first request misses, an exact repeat hits floor(prompt/64)*64, and hit+miss = prompt", async () => {
    sim = await startSimulator({ policy: "echo" });
    const req = base([system(LONG_SYSTEM), user("What does the project do?")]);
    const u1 = await usageOf(req);
    expect(u1.prompt_cache_hit_tokens).toBe(0);
    expect(u1.prompt_cache_miss_tokens).toBe(u1.prompt_tokens);
    expect(u1.prompt_tokens).toBeGreaterThan(200);
    const u2 = await usageOf(req);
    expect(u2.prompt_tokens).toBe(u1.prompt_tokens);
    expect(u2.prompt_cache_hit_tokens).toBe(Math.floor(u1.prompt_tokens / 64) * 64);
    expect(u2.prompt_cache_hit_tokens + u2.prompt_cache_miss_tokens).toBe(u2.prompt_tokens);
    expect(u2.prompt_tokens_details?.cached_tokens).toBe(u2.prompt_cache_hit_tokens);
    expect(u2.total_tokens).toBe(u2.prompt_tokens + u2.completion_tokens);
  });

  it("the next turn hits the previous input and the previous output", async () => {
    const answer = "The project greets users. ".repeat(30); // ~200 tokens of output
    sim = await startSimulator({ script: [{ content: answer }] });
    const msgs: ChatRequest["messages"] = [system(LONG_SYSTEM), user("What does the project do?")];
    const u1 = await usageOf(base(msgs));
    const u2 = await usageOf(base([...msgs, { role: "assistant", content: u1.message.content }, user("And how?")]));
    expect(u2.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(Math.floor(u1.prompt_tokens / 64) * 64);
    // The output unit counts too: the hit reaches past the first request's whole input.
    expect(u2.prompt_cache_hit_tokens).toBeGreaterThan(u1.prompt_tokens);
    expect(u2.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(Math.floor((u1.prompt_tokens + u1.completion_tokens) / 64) * 64 - 64);
    expect(u2.prompt_cache_hit_tokens % 64).toBe(0);
  });

  it("a tool-call turn with its reasoning comes back as a prefix (thinking on)", async () => {
    sim = await startSimulator({
      script: [{ reasoning: "I should read the file. ".repeat(20), tool_calls: [{ name: "read_file", arguments: '{"path":"src/greet.js"}' }] }],
    });
    const msgs: ChatRequest["messages"] = [system(LONG_SYSTEM), user("Fix the typo")];
    const req = { ...base(msgs), thinking: { type: "enabled" as const } };
    const r1 = await post(sim.url, req);
    const j1 = r1.json as { usage: Usage; choices: { message: { content: string; reasoning_content: string; tool_calls: { id: string; type: "function"; function: { name: string; arguments: string } }[] } }[] };
    const m = j1.choices[0]!.message;
    const next = {
      ...req,
      messages: [
        ...msgs,
        { role: "assistant", content: m.content, reasoning_content: m.reasoning_content, tool_calls: m.tool_calls.map(({ id, type, function: f }) => ({ id, type, function: f })) },
        { role: "tool", tool_call_id: m.tool_calls[0]!.id, content: "file text" },
      ],
    };
    const r2 = await post(sim.url, next);
    const u2 = (r2.json as { usage: Usage }).usage;
    expect(u2.prompt_cache_hit_tokens).toBeGreaterThan(j1.usage.prompt_tokens); // reasoning + call were stored
  });

  it("a change in the system text gives 0", async () => {
    sim = await startSimulator({ policy: "echo" });
    await usageOf(base([system(LONG_SYSTEM), user("hello")]));
    const u = await usageOf(base([system("X" + LONG_SYSTEM), user("hello")]));
    expect(u.prompt_cache_hit_tokens).toBe(0);
    expect(u.prompt_cache_miss_tokens).toBe(u.prompt_tokens);
  });

  it("a different tool list hits only the blocks before the tool list", async () => {
    sim = await startSimulator({ policy: "echo" });
    const a = base([system(LONG_SYSTEM), user("hello")], [READ_FILE, SEARCH_REPLACE]);
    const b = base([system(LONG_SYSTEM), user("hello")], [SEARCH_REPLACE]);
    await usageOf(a);
    const u = await usageOf(b);
    // The expected hit, from the two prompts' token sequences: whole blocks of their common prefix.
    const ta = tokenizeSegments(promptSegments(a));
    const tb = tokenizeSegments(promptSegments(b));
    let common = 0;
    while (common < tb.ends.length && ta.ends[common] === tb.ends[common] && ta.text.slice(0, ta.ends[common]) === tb.text.slice(0, tb.ends[common])) common++;
    const toolsStart = tb.text.indexOf('{"type":"function"');
    // The shared prefix ends inside the first tool definition, where the two lists start to differ.
    expect(tb.ends[common - 1]).toBeGreaterThanOrEqual(toolsStart);
    expect(tb.ends[common - 1]).toBeLessThan(toolsStart + JSON.stringify(SEARCH_REPLACE).length);
    expect(u.prompt_cache_hit_tokens).toBe(Math.floor(common / 64) * 64);
    expect(u.prompt_cache_hit_tokens).toBeGreaterThan(0);
    expect(u.prompt_cache_hit_tokens).toBeLessThan(Math.floor(u.prompt_tokens / 64) * 64);
  });

  it("is isolated per API key and per user_id", async () => {
    sim = await startSimulator({ policy: "echo" });
    const req = base([system(LONG_SYSTEM), user("hello")]);
    await usageOf(req, "sk-one");
    expect((await usageOf(req, "sk-one")).prompt_cache_hit_tokens).toBeGreaterThan(0);
    expect((await usageOf(req, "sk-two")).prompt_cache_hit_tokens).toBe(0);
    expect((await usageOf({ ...req, user_id: "u1" }, "sk-one")).prompt_cache_hit_tokens).toBe(0);
  });

  it("the block size is configurable", async () => {
    sim = await startSimulator({ policy: "echo", blockSize: 16 });
    const req = base([system(LONG_SYSTEM), user("hello")]);
    const u1 = await usageOf(req);
    const u2 = await usageOf(req);
    expect(u2.prompt_cache_hit_tokens).toBe(Math.floor(u1.prompt_tokens / 16) * 16);
  });

  it("separate simulators share nothing", async () => {
    sim = await startSimulator({ policy: "echo" });
    const req = base([system(LONG_SYSTEM), user("hello")]);
    await usageOf(req);
    await sim.close();
    sim = await startSimulator({ policy: "echo" });
    expect((await usageOf(req)).prompt_cache_hit_tokens).toBe(0);
  });

  it("serves a 1 MB prompt quickly, and its repeat hits all its whole blocks", async () => {
    sim = await startSimulator({ policy: "echo" });
    const big = "Some project notes. Ports, hosts and owners are listed below.\n".repeat(16_500);
    expect(big.length).toBeGreaterThan(1_000_000);
    const req = base([system(LONG_SYSTEM), user(big), { role: "assistant", content: "ok" }, user("and now?")]);
    const t0 = performance.now();
    const u1 = await usageOf(req);
    const u2 = await usageOf(req);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(u1.prompt_tokens).toBeGreaterThan(250_000);
    expect(u2.prompt_cache_hit_tokens).toBe(Math.floor(u1.prompt_tokens / 64) * 64);
  });
});
