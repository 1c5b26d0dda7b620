// Harness time per model turn: what hel spends between the end of one model response and sending the
// next request, tool execution excluded. Contract: runs hel's real runTurn with the real model client
// against the simulator (in its own process, over HTTP) on histories of the given sizes; each turn
// makes `steps` calls of a constant tool, giving `steps` measured gaps per turn; the first turn of
// every size only warms up. Three readings of the same gap, all minus the tool_start→tool_end time:
//   loop   `response` event → next `request` event: the agent loop alone (the brief's definition)
//   wire   `response` event → undici's request:bodySent: adds the SDK's serialization and the HTTP write
//   whole  undici's request:trailers (last byte of the answer in) → request:bodySent: everything client-side
// `sdk` (request event → undici's request:create: the openai SDK building the request, then hel's
// fetch adapter handing it to undici) and `send` (request:create → request:bodySent: undici encoding
// the body and writing it) split the part of `wire` that is not the loop; `wireCpu` is the process's
// CPU time over the `wire` gap, which a machine shared with other work does not inflate.
import { spawn, type ChildProcess } from "node:child_process";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "../src/zod.js";
import type { AgentEvent } from "../src/agent/events.js";
import { runTurn, type AgentSetup } from "../src/agent/loop/loop.js";
import { StampCounter } from "../src/agent/stamps.js";
import { buildSystemPrompt, isoDay } from "../src/agent/system-prompt.js";
import { createModelClient } from "../src/model/client.js";
import { detachedScope } from "../src/tools/detached-context.js";
import { toolDefinitions } from "../src/tools/registry.js";
import { readFileTool } from "../src/tools/file/read-file.js";
import { searchReplaceTool } from "../src/tools/file/search-replace.js";
import type { Tool } from "../src/tools/types.js";
import { exchange, historyOfCount, jsonBytes, rng } from "./history.js";

export interface HarnessSize {
  messages: number;
  /** JSON size of the history the requests carry, bytes. */
  historyBytes: number;
  loop: number[];
  wire: number[];
  whole: number[];
  sdk: number[];
  send: number[];
  /** CPU time of the process over the `wire` gap, tools excluded. */
  wireCpu: number[];
}

const noopTool: Tool<{ step: number }> = {
  name: "bench_noop",
  description: "Returns a constant string. Exists only for hel's benchmark.",
  schema: z.strictObject({ step: z.number().int() }),
  spill: false,
  run: async () => "ok",
};

type MarkKind = "request" | "response" | "tool_start" | "tool_end" | "create" | "sent" | "done";
interface Mark {
  kind: MarkKind;
  t: number;
  /** process.cpuUsage() user + system, ms: on a busy machine wall time also counts others' work. */
  cpu: number;
}

function mark(kind: MarkKind): Mark {
  const c = process.cpuUsage();
  return { kind, t: performance.now(), cpu: (c.user + c.system) / 1000 };
}

async function startSimChild(steps: number): Promise<{ url: string; child: ChildProcess }> {
  const script = fileURLToPath(new URL("./sim-child.js", import.meta.url));
  const child = spawn(process.execPath, [script, String(steps)], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the bench simulator exited (${code}) before listening`)));
    lines.on("line", (line) => {
      const m = /^listening (\S+)/.exec(line);
      if (m) resolve(m[1]!);
    });
  });
  return { url, child };
}

interface Gap {
  loop: number;
  wire: number;
  whole: number;
  sdk: number;
  send: number;
  wireCpu: number;
}

/** The gaps of one turn's marks; see the module comment for the readings. */
function gaps(marks: readonly Mark[]): Gap[] {
  const out: Gap[] = [];
  for (let i = 0; i < marks.length; i++) {
    if (marks[i]!.kind !== "response") continue;
    const j = marks.findIndex((m, k) => k > i && m.kind === "request");
    if (j < 0) continue;
    let tools = 0;
    let toolsCpu = 0;
    let toolStart: Mark | undefined;
    for (let k = i + 1; k < j; k++) {
      const m = marks[k]!;
      if (m.kind === "tool_start") toolStart = m;
      if (m.kind === "tool_end" && toolStart) {
        tools += m.t - toolStart.t;
        toolsCpu += m.cpu - toolStart.cpu;
      }
    }
    const sent = marks.find((m, k) => k > j && m.kind === "sent");
    const created = marks.find((m, k) => k > j && m.kind === "create");
    const done = marks
      .slice(0, i)
      .reverse()
      .find((m) => m.kind === "done");
    const tResponse = marks[i]!.t;
    out.push({
      loop: marks[j]!.t - tResponse - tools,
      wire: sent ? sent.t - tResponse - tools : Number.NaN,
      whole: sent && done ? sent.t - done.t - tools : Number.NaN,
      sdk: created ? created.t - marks[j]!.t : Number.NaN,
      send: created && sent ? sent.t - created.t : Number.NaN,
      wireCpu: sent ? sent.cpu - marks[i]!.cpu - toolsCpu : Number.NaN,
    });
  }
  return out;
}

export async function measureHarness(options: { sizes: readonly number[]; turns: (messages: number) => number; steps: number; log: (line: string) => void }): Promise<HarnessSize[]> {
  const projectDir = await mkdtemp(join(tmpdir(), "hel-bench-harness-"));
  const { url, child } = await startSimChild(options.steps);
  const client = createModelClient({ baseURL: url, apiKey: "bench-key" });

  let marks: Mark[] = [];
  const onSent = (): void => void marks.push(mark("sent"));
  const onDone = (): void => void marks.push(mark("done"));
  const onCreate = (): void => void marks.push(mark("create"));
  subscribe("undici:request:create", onCreate);
  subscribe("undici:request:bodySent", onSent);
  subscribe("undici:request:trailers", onDone);

  const tools = [readFileTool, searchReplaceTool, noopTool] as Tool[];
  const systemPrompt = buildSystemPrompt({ projectDir, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules: [] });
  const emit = (event: AgentEvent): void => {
    switch (event.type) {
      case "request":
      case "response":
      case "tool_start":
      case "tool_end":
        marks.push(mark(event.type));
    }
  };
  const run: AgentSetup = {
    ref: { agent: "parent" },
    client,
    tools,
    toolDefinitions: toolDefinitions(tools),
    toolContext: detachedScope(projectDir, "edit", "bench"),
    request: { model: "deepseek-flash", maxTokens: 65536, effort: "high" },
    maxSteps: options.steps + 5,
    emit,
    stamps: new StampCounter(),
  };

  const results: HarnessSize[] = [];
  try {
    for (const size of options.sizes) {
      const base = historyOfCount(systemPrompt, size, size);
      const result: HarnessSize = { messages: size, historyBytes: jsonBytes(base), loop: [], wire: [], whole: [], sdk: [], send: [], wireCpu: [] };
      const r = rng(1000 + size);
      const turns = options.turns(size);
      const t0 = performance.now();
      for (let turn = 0; turn <= turns; turn++) {
        const messages = base.slice();
        messages.push(exchange(r, 0, () => "unused")[0]!);
        marks = [];
        const outcome = await runTurn(messages, run, new AbortController().signal);
        if (outcome.exitReason !== "completed") throw new Error(`harness turn at ${size} messages ended with ${outcome.exitReason}: ${outcome.error ?? ""}`);
        if (turn === 0) continue;
        for (const g of gaps(marks)) {
          result.loop.push(g.loop);
          result.wire.push(g.wire);
          result.whole.push(g.whole);
          result.sdk.push(g.sdk);
          result.send.push(g.send);
          result.wireCpu.push(g.wireCpu);
        }
      }
      options.log(`harness: ${size} messages (${(result.historyBytes / 1e6).toFixed(2)} MB), ${turns} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      results.push(result);
    }
  } finally {
    unsubscribe("undici:request:create", onCreate);
    unsubscribe("undici:request:bodySent", onSent);
    unsubscribe("undici:request:trailers", onDone);
    await client.close();
    child.stdin!.end();
    child.kill("SIGTERM");
    await rm(projectDir, { recursive: true, force: true });
  }
  return results;
}
