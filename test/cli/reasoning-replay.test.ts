// Reasoning is replayed: in thinking mode every assistant message that made tool calls goes back with
// its own reasoning_content, whatever rewrote or rebuilt the conversation — a resume, a fold, a
// compaction, a full delegation's fork, an ask. Each reply's reasoning names the call it led to, so
// every replayed message is checked against its own reasoning, not just for having some. hel runs in
// this process as the command runs it (helpers/conversation.ts), against the simulator.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { SimReply, Simulator } from "../../sim/index.js";
import { episode } from "../../sim/policies.js";
import type { Policy } from "../../sim/types.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";

const sim = simulators();

const body = (s: Simulator, i: number) => s.requests[i]!.body as ChatRequest;
const reasoningFor = (id: string) => `thinking before ${id}`;

/** The episode policy with ids that depend on the conversation and reasoning that names its call. */
const thoughtful: Policy = (req, ctx) => {
  const reply = episode(req, ctx) as SimReply;
  if (!reply.tool_calls) return reply;
  const tool_calls = reply.tool_calls.map((c, i) => ({ ...c, id: `call_${req.messages.length}_${i}` }));
  return { ...reply, tool_calls, reasoning: reasoningFor(tool_calls[0]!.id) };
};

/** The tool-call turns of a request, each with the reasoning it was sent with; at least `atLeast` of them. */
function replayed(request: ChatRequest, atLeast = 1) {
  const turns = request.messages.flatMap((m) => (m.role === "assistant" && m.tool_calls ? [m] : []));
  expect(turns.length).toBeGreaterThanOrEqual(atLeast);
  for (const turn of turns) expect(turn.reasoning_content).toBe(reasoningFor(turn.tool_calls![0]!.id));
  return turns;
}

async function project(): Promise<string> {
  const dir = await tempProject();
  await writeFile(join(dir, "a.log"), "error TS2304: cannot find name 'x'\n");
  await writeFile(join(dir, "b.log"), "build passed after clearing the cache\n");
  return dir;
}

it("through a resume: the first request of the next run replays the earlier turn's calls with their reasoning", async () => {
  const dir = await project();
  const s = await sim({ policy: thoughtful });
  const first = await runHelInProcess({ args: ["-C", dir, "--tools", "read_file", "look at a.log and b.log"], baseUrl: s.url });
  expect(first.code).toBe(0);
  const r = await sim({ policy: thoughtful });
  const second = await runHelInProcess({ args: ["-C", dir, "--tools", "read_file", "--resume", sessionIdOf(first.stderr)!, "look at a.log"], baseUrl: r.url });
  expect(second.code).toBe(0);
  const turns = replayed(body(r, 0), 2);
  expect(turns.map((t) => t.tool_calls![0]!.function.name)).toEqual(["read_file", "read_file"]);
  // The bytes the earlier run last sent, then its answer and the new instruction.
  const last = body(s, s.requests.length - 1).messages;
  expect(JSON.stringify(body(r, 0).messages.slice(0, last.length))).toBe(JSON.stringify(last));
});

it("through a fold: the request after it replays the fold call's reasoning", async () => {
  const dir = await project();
  const s = await sim({ policy: thoughtful });
  const run = await runHelInProcess({ args: ["-C", dir, "--tools", "read_file,fold", "look at a.log and b.log"], baseUrl: s.url });
  expect(run.code).toBe(0);
  const afterFold = body(s, 3);
  const [fold] = replayed(afterFold);
  expect(fold!.tool_calls![0]!.function.name).toBe("fold");
  expect(afterFold.messages[2]).toBe(afterFold.messages.find((m) => m.role === "assistant"));
});

it("through a compaction: the tail after the summary replays its calls with their reasoning", async () => {
  const dir = await tempProject();
  for (let n = 1; n <= 2; n++) {
    const lines = Array.from({ length: 120 }, (_, j) => `note ${n} line ${j}: the quick brown fox jumps over the lazy dog`);
    await writeFile(join(dir, `notes${n}.txt`), lines.join("\n") + "\n");
  }
  const s = await sim({ policy: thoughtful });
  const run = await runHelInProcess({ args: ["-C", dir, "--tools", "read_file", "--compact-at", "6000"], input: "read notes1.txt\nread notes2.txt\n", baseUrl: s.url });
  expect(run.code).toBe(0);
  const after = s.requests.map((r) => r.body as ChatRequest).find((b) => /^\[compacted /.test(String(b.messages[1]?.content)))!;
  expect(after).toBeDefined();
  const [tail] = replayed(after);
  expect(tail!.tool_calls![0]!.function.arguments).toContain("notes2.txt");
});

it("through a full delegation's fork: the child's first request replays the parent's calls with their reasoning", async () => {
  const dir = await project();
  const s = await sim({ policy: thoughtful });
  const first = await runHelInProcess({ args: ["-C", dir, "--tools", "read_file", "look at a.log and b.log"], baseUrl: s.url });
  const r = await sim({ policy: () => ({ content: "ok" }) });
  r.push({ reasoning: reasoningFor("call_d"), tool_calls: [{ id: "call_d", name: "delegate_task", arguments: JSON.stringify({ task: "check the build" }) }] }, { content: "child: fine" }, { content: "parent: done" });
  const run = await runHelInProcess({ args: ["-C", dir, "--tools", "read_file", "--delegate", "full", "--resume", sessionIdOf(first.stderr)!, "delegate the check"], baseUrl: r.url });
  expect(run.code).toBe(0);
  const child = body(r, 1);
  expect(child.messages.slice(0, -1)).toEqual(body(r, 0).messages);
  expect(replayed(child, 2).length).toBe(replayed(body(r, 0), 2).length);
  // Back in the parent, the delegate_task call goes back with its own reasoning too.
  expect(replayed(body(r, 2), 3).at(-1)!.tool_calls![0]!.id).toBe("call_d");
});

it("through an ask: the child sees the span as it was, its calls with their reasoning", async () => {
  const dir = await project();
  const tools = ["--tools", "read_file,fold,ask"];
  const s = await sim({ policy: thoughtful });
  const first = await runHelInProcess({ args: ["-C", dir, ...tools, "look at a.log and b.log"], baseUrl: s.url });
  const id = sessionIdOf(first.stderr)!;
  const handle = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).archive[0].handle;
  const r = await sim({ policy: () => ({ content: "ok" }) });
  r.push(
    { reasoning: reasoningFor("call_q"), tool_calls: [{ id: "call_q", name: "ask", arguments: JSON.stringify({ handle, question: "what did a.log say?" }) }] },
    { content: "cannot find name 'x'" },
    { content: "answered" },
  );
  const run = await runHelInProcess({ args: ["-C", dir, ...tools, "--resume", id, "ask about the build"], baseUrl: r.url });
  expect(run.code).toBe(0);
  const turns = replayed(body(r, 1), 2);
  expect(turns.map((t) => t.tool_calls![0]!.function.name)).toEqual(["read_file", "read_file"]);
});
