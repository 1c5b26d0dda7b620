// Compaction in whole conversations opened in this process against the simulator: the summary
// request extends the last request (served from the cache), the new view is system + [compacted
// <handle>] + the recent tail, the span is archived, a resumed session sends what a continuous one
// does, a context-length 400 is compacted and retried, and bad summaries count as failures until hel
// stops compacting.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { Simulator } from "../../../sim/index.js";
import { episode } from "../../../sim/policies.js";
import type { Policy, SimStep } from "../../../sim/types.js";
import { compactionInstruction } from "../../../src/agent/context/compaction.js";
import type { ChatRequest } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import { tempProject } from "../../helpers/temp-project.js";
import { simulators, steadyIds, sessionIdOf } from "../../helpers/simulators.js";

const sim = simulators();

const body = (s: Simulator, i: number) => s.requests[i]!.body as ChatRequest;
// Sized so that the second read of a note pushes the view past it and the first does not.
const ARGS = ["--tools", "read_file", "--effort", "none", "--compact-at", "5800"];
/** Reads the files an instruction names, then answers; tool call ids depend only on the conversation. */
const steady = steadyIds(episode);

async function project(): Promise<string> {
  const dir = await tempProject();
  for (let n = 1; n <= 3; n++) {
    const lines = Array.from({ length: 120 }, (_, j) => `note ${n} line ${j}: the quick brown fox jumps over the lazy dog`);
    await writeFile(join(dir, `notes${n}.txt`), lines.join("\n") + "\n");
  }
  return dir;
}

it("the summary request extends the last request; the next request is system, [compacted <handle>] with the summary, then the tail; the span is archived", async () => {
  const dir = await project();
  const s = await sim({ policy: steady });
  const run = await runInProcess({ args: ["-C", dir, ...ARGS], input: "read notes1.txt\nread notes2.txt\n", baseUrl: s.url });
  expect(run.code).toBe(0);
  // Turn 1: read, answer. Turn 2: read; the result pushes the view past --compact-at; summary; answer.
  expect(s.requests).toHaveLength(5);
  const last = body(s, 2);
  const summaryRequest = body(s, 3);
  const after = body(s, 4);
  expect(JSON.stringify(summaryRequest.messages.slice(0, last.messages.length))).toBe(JSON.stringify(last.messages));
  expect(summaryRequest.messages.slice(last.messages.length, -1).map((m) => m.role)).toEqual(["assistant", "tool"]);
  expect(summaryRequest.messages.at(-1)).toEqual({ role: "user", content: compactionInstruction() });
  expect({ ...summaryRequest, messages: undefined }).toEqual({ ...last, messages: undefined });
  // Served from the cache for everything the previous request sent.
  expect(s.requests[3]!.usage!.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(Math.floor(s.requests[2]!.usage!.prompt_tokens / 64) * 64);

  const id = sessionIdOf(run.stderr)!;
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));
  const [entry] = snapshot.archive;
  expect(entry).toMatchObject({ kind: "compaction", first_stamp: 1, last_stamp: 2, files: ["notes1.txt"] });
  expect(entry.note).toBe('## Goal\nCarry on with the user\'s instructions.\n## User instructions (verbatim)\n- "read notes1.txt"\n- "read notes2.txt"\n## Next steps\n1. Continue.');
  const archived = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "archive", `${entry.handle}.json`), "utf8"));
  const spanLength = archived.messages.length;
  expect(JSON.stringify(archived.messages)).toBe(JSON.stringify(summaryRequest.messages.slice(1, 1 + spanLength)));
  expect(JSON.stringify(after.messages)).toBe(
    JSON.stringify([
      summaryRequest.messages[0],
      {
        role: "user",
        content: `[compacted ${entry.handle}] The earlier conversation (#1–#2) was compacted into the summary below; recall {"handle":"${entry.handle}"} reads it back exactly, and ask answers questions about it. The messages after this one are the most recent, as they were.\n\n${entry.note}`,
      },
      ...summaryRequest.messages.slice(1 + spanLength, -1),
    ]),
  );
  // The tail starts at the instruction being worked on, as it was said.
  expect(after.messages[2]).toEqual({ role: "user", content: "[#3] read notes2.txt" });
  expect(run.stderr).toMatch(new RegExp(`⤓ compacted #1–#2 into ${entry.handle}: context ~[\\d,]+ → ~[\\d,]+ tokens`));
});

it("the first request after --resume of a compacted session equals the one a continuous process sends", async () => {
  const continuousDir = await project();
  const continuous = await sim({ policy: steady });
  const one = await runInProcess({ args: ["-C", continuousDir, ...ARGS], input: "read notes1.txt\nread notes2.txt\nread notes3.txt\n", baseUrl: continuous.url });
  expect(one.code).toBe(0);
  const dir = await project();
  const stopped = await sim({ policy: steady });
  const first = await runInProcess({ args: ["-C", dir, ...ARGS], input: "read notes1.txt\nread notes2.txt\n", baseUrl: stopped.url });
  const id = sessionIdOf(first.stderr)!;
  const second = await runInProcess({ args: ["-C", dir, ...ARGS, "--resume", id, "read notes3.txt"], baseUrl: stopped.url });
  expect(second.code).toBe(0);
  const same = (s: Simulator, d: string) => JSON.stringify(body(s, 5)).replaceAll(d, "<project>");
  expect(body(stopped, 5).messages[1]!.content).toMatch(/^\[compacted [0-9a-f]{4,12}\] /);
  expect(same(stopped, dir)).toBe(same(continuous, continuousDir));
});

it("a request refused for its length is compacted and sent again once; a summary request too long itself leaves out its oldest messages", async () => {
  const dir = await project();
  // A window the second read overflows while hel's own estimate is still under --compact-at.
  const s = await sim({ policy: steady, contextWindow: 9000 });
  const run = await runInProcess({
    args: ["-C", dir, "--tools", "read_file", "--effort", "none", "--max-output-tokens", "100", "--compact-at", "12000"],
    input: "read notes1.txt\nread notes2.txt\nread notes3.txt\n",
    baseUrl: s.url,
  });
  expect(run.stderr).not.toMatch(/hel: the conversation is longer/);
  expect(run.code).toBe(0);
  const statuses = s.requests.map((r) => r.status);
  expect(statuses.filter((x) => x === 400).length).toBeGreaterThanOrEqual(2);
  const summaries = s.requests.filter((r) => (r.body as ChatRequest).messages.at(-1)!.content === compactionInstruction());
  // The first summary request was too long; the one answered left out the oldest messages.
  expect(summaries.at(-1)!.status).toBe(200);
  expect((summaries.at(-1)!.body as ChatRequest).messages.length).toBeLessThan((summaries[0]!.body as ChatRequest).messages.length);
  expect(run.stdout).toMatch(/done: read notes3.txt\n$/);
  expect(run.stderr).toMatch(/⤓ compacted #1/);
});

it("an empty summary, one longer than what it replaces, and one cut off are failures; after 3 hel stops compacting and says so, and nothing is lost", async () => {
  const dir = await project();
  const read = (path: string, n: number): SimStep => ({ tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path }), id: `call_${n}` }] });
  const s = await sim({
    script: [read("notes1.txt", 1), { content: "" }, read("notes2.txt", 2), { content: "word ".repeat(3_000) }, read("notes3.txt", 3), { content: "## Goal\ncut", finish_reason: "length" }, { content: "done" }],
  });
  const run = await runInProcess({ args: ["-C", dir, "--tools", "read_file", "--effort", "none", "--compact-at", "100", "read all three"], baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("done\n");
  expect(run.stderr.match(/^hel: compaction failed: .*$/gm)).toEqual([
    "hel: compaction failed: the summary was empty",
    "hel: compaction failed: the summary was no shorter than what it would replace",
    "hel: compaction failed: the summary was empty — hel stops compacting this session after 3 failures; /compact tries again, or start a new session",
  ]);
  expect(s.requests).toHaveLength(7);
  const id = sessionIdOf(run.stderr)!;
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));
  expect(snapshot.compaction).toEqual({ failures: 3, stopped: true });
  expect(snapshot.archive).toEqual([]);
  expect(snapshot.messages.filter((m: { role: string }) => m.role === "tool")).toHaveLength(3);
});

it("with all the default tools and a 6,000-token window, a conversation that outgrows it is compacted to fit; after two compactions recall on the second finds what the first archived", async () => {
  const dir = await project();
  await writeFile(join(dir, "notes1.txt"), `BIGUNIQ-1 opens this file\n${await readFile(join(dir, "notes1.txt"), "utf8")}`);
  // The episode policy without the fold tool: what leaves the view is compaction's doing.
  const noFold: Policy = (req, ctx) => steady({ ...req, tools: req.tools?.filter((t) => t.function.name !== "fold") }, ctx);
  const s = await sim({ policy: noFold, contextWindow: 6000 });
  const args = ["-C", dir, "--effort", "none", "--max-output-tokens", "400"];
  const run = await runInProcess({ args: [...args, "--json"], input: "read notes1.txt\nread notes2.txt\nread notes3.txt\n", baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(
    run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).exit_reason),
  ).toEqual(["completed", "completed", "completed"]);
  expect(s.requests.map((r) => r.status)).toContain(400);
  expect(s.requests.at(-1)!.status).toBe(200);
  const id = sessionIdOf(run.stderr)!;
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));
  const compactions = snapshot.archive.filter((e: { kind: string }) => e.kind === "compaction");
  expect(compactions.length).toBeGreaterThanOrEqual(2);
  const [first, second] = compactions as { handle: string }[];
  // The second compaction's span holds the first's [compacted …] message, not the text it archived.
  const archived = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "archive", `${second!.handle}.json`), "utf8"));
  expect(archived.messages[0].content).toMatch(new RegExp(`^\\[compacted ${first!.handle}\\]`));
  expect(JSON.stringify(archived.messages)).not.toContain("BIGUNIQ-1");

  s.push({ tool_calls: [{ name: "recall", arguments: JSON.stringify({ handle: second!.handle, query: "BIGUNIQ-1" }), id: "call_recall" }] }, { content: "found" });
  const again = await runInProcess({ args: [...args, "--resume", id, "find BIGUNIQ-1"], baseUrl: s.url });
  expect(again.code).toBe(0);
  const result = String(body(s, s.requests.length - 1).messages.at(-1)!.content);
  expect(result).toContain(`none in ${second!.handle} itself, found in ${first!.handle}:`);
  expect(result).toContain(`in ${first!.handle} (named by ${second!.handle}; recall {"handle":"${first!.handle}"} reads it):`);
  expect(result).toMatch(/\t\[#2\] +1\tBIGUNIQ-1 opens this file/);
});

/** Other servers' refusals for length, as each sends them (the `error` member is what the client reads). */
const OVERFLOWS: [string, unknown, number | undefined][] = [
  [
    "vLLM",
    {
      error: {
        object: "error",
        message: "This model's maximum context length is 6000 tokens. However, you requested 9100 tokens (9000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    },
    6000,
  ],
  ["SGLang", { error: { object: "error", message: "The input (9000 tokens) is longer than the model's context length (6000 tokens).", type: "BadRequestError", param: null, code: 400 } }, 6000],
  ["llama.cpp", { error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 6000 } }, 6000],
  ["an OpenAI-style host", { error: { message: "Input is too long for this model.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } }, undefined],
];

for (const [server, refusal, window] of OVERFLOWS) {
  it(`${server}'s refusal for length is compacted and sent again once, as DeepSeek's is${window ? "; the window it names bounds the session's compaction" : ""}`, async () => {
    const dir = await project();
    // The fourth request (the second instruction's, with its read) is refused as that server refuses it.
    const refusing: Policy = (req, ctx) => (ctx.requestIndex === 3 ? { fault: { kind: "status", status: 400, body: refusal } } : steady(req, ctx));
    const s = await sim({ policy: refusing });
    const run = await runInProcess({ args: ["-C", dir, ...ARGS.slice(0, 4), "--compact-at", "12000"], input: "read notes1.txt\nread notes2.txt\nread notes3.txt\n", baseUrl: s.url });
    expect(run.stderr).not.toMatch(/hel: /);
    expect(run.code).toBe(0);
    expect(s.requests[3]!.status).toBe(400);
    const refused = body(s, 3);
    const summary = body(s, 4);
    const again = body(s, 5);
    expect(summary.messages.at(-1)).toEqual({ role: "user", content: compactionInstruction() });
    expect(summary.messages.slice(0, -1)).toEqual(refused.messages);
    expect(again.messages[1]!.content).toMatch(/^\[compacted /);
    expect(again.messages.length).toBeLessThan(refused.messages.length);
    expect(again.messages.at(-1)).toEqual(refused.messages.at(-1));
    // The third instruction: with a named window of 6,000 its view is compacted before it is sent
    // (its estimate is over 80% of the window); without one --compact-at 12000 lets it go.
    const summaries = s.requests.filter((r) => (r.body as ChatRequest).messages.at(-1)!.content === compactionInstruction());
    expect(summaries.length).toBe(window ? 2 : 1);
    expect(run.stdout).toMatch(/done: read notes3.txt\n$/);
  });
}

it("--context-window 16000 starts compaction at 80% of it, 12,800 tokens, so a server with that window refuses nothing; without it none starts", async () => {
  const dir = await tempProject();
  const names = Array.from({ length: 16 }, (_, n) => `part${n + 1}.txt`);
  for (const name of names) await writeFile(join(dir, name), Array.from({ length: 40 }, (_, j) => `${name} line ${j}: the quick brown fox jumps over the lazy dog`).join("\n") + "\n");
  // Two files an instruction: what compaction replaces is earlier instructions' work.
  const input = Array.from({ length: 8 }, (_, i) => `read ${names[2 * i]} ${names[2 * i + 1]}\n`).join("");
  const isSummary = (r: Simulator["requests"][number]) => (r.body as ChatRequest).messages.at(-1)!.content === compactionInstruction();
  const args = ["-C", dir, "--tools", "read_file", "--effort", "none", "--max-output-tokens", "400"];

  const s = await sim({ policy: steady, contextWindow: 16_000 });
  const run = await runInProcess({ args: [...args, "--context-window", "16000"], input, baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(s.requests.map((r) => r.status).filter((x) => x !== 200)).toEqual([]);
  const first = s.requests.findIndex(isSummary);
  expect(first).toBeGreaterThan(0);
  // The last request before it was near 12,800 (within an instruction's reads, and the misestimate of a
  // turn's first request): compaction started there, not near the window.
  const before = s.requests[first - 1]!.usage!.prompt_tokens;
  expect(before).toBeGreaterThan(12_800 - 2_500);
  expect(before).toBeLessThan(12_800 + 2_500);

  const unset = await sim({ policy: steady });
  const plain = await runInProcess({ args, input, baseUrl: unset.url });
  expect(plain.code).toBe(0);
  expect(unset.requests.filter(isSummary)).toEqual([]);
});
