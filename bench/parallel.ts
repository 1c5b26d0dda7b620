// Parallel subagents: the built CLI with --delegate full against the simulator, every answer held back
// by a fixed delay, as a model's would be. Contract: the parent reads a notes file, then sends one
// message with three delegate_task calls and two read_file calls, either with the three delegations
// side by side (run at the same time) or with a read_file between each two (run one after another);
// each child reads its own file and answers. Measured per run: the children's time (from the first
// child request's arrival to the parent's next request's arrival), the whole run and peak RSS of the
// hel process, and, for the parallel runs, the cache-hit share of each child's first request. The two
// shapes alternate, so a slower moment of the shared machine falls on both.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN } from "../scripts/hel-bin.js";
import { lastUserText } from "../sim/policies.js";
import { startSimulator, type SimReply, type SimStep } from "../sim/index.js";
import type { ChatRequest } from "../src/wire/messages.js";
import { runChild } from "./procs.js";

export const ANSWER_DELAY_MS = 500;
const CHILDREN = ["alpha", "beta", "gamma"] as const;
const INSTRUCTION = "Read notes.md, then have three subagents at once report the first line of alpha.txt, beta.txt and gamma.txt.";

export interface ParallelResult {
  parallel: Shape;
  sequence: Shape;
  /** Cache-hit tokens / prompt tokens of each parallel child's first request. */
  firstHitShares: number[];
  requestsPerRun: number;
}

interface Shape {
  childrenMs: number[];
  wallMs: number[];
  peakRssMb: number[];
}

type ShapeName = "parallel" | "sequence";

export const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
/** Tool results after the last user message: what this agent has done in its turn so far. */
export function toolResults(req: ChatRequest): number {
  const lastUser = req.messages.findLastIndex((m) => m.role === "user");
  return req.messages.slice(lastUser + 1).filter((m) => m.role === "tool").length;
}

/**
 * The children's span in a run: from the first child request's arrival to the parent's first request
 * with more than `afterResults` tool results (the children's answers back).
 */
export function childrenClock(afterResults: number) {
  let firstChildAt = Number.NaN;
  let childrenEndAt = Number.NaN;
  return {
    onArrival(who: "parent" | "child", req: ChatRequest): void {
      const now = performance.now();
      if (who === "child" && Number.isNaN(firstChildAt)) firstChildAt = now;
      if (who === "parent" && toolResults(req) > afterResults && Number.isNaN(childrenEndAt)) childrenEndAt = now;
    },
    reset(): void {
      firstChildAt = childrenEndAt = Number.NaN;
    },
    span: (): number => childrenEndAt - firstChildAt,
  };
}

/**
 * The cache-hit share of each child's first request among `requests`: a request whose last user message
 * holds a child's task (`isChildTask`) and that carries no tool result yet.
 */
export function firstChildHitShares(requests: readonly { body: unknown; usage?: { prompt_tokens: number; prompt_cache_hit_tokens: number } | null }[], isChildTask: (text: string) => boolean): number[] {
  return requests.flatMap((r) => {
    const body = r.body as ChatRequest;
    return isChildTask(lastUserText(body)) && toolResults(body) === 0 && r.usage ? [r.usage.prompt_cache_hit_tokens / r.usage.prompt_tokens] : [];
  });
}

/** The parent's and children's turns; `shape` decides how the parent's one message orders its calls. */
function policy(shape: () => ShapeName, onArrival: (who: "parent" | "child", req: ChatRequest) => void) {
  return (req: ChatRequest): SimStep => {
    const child = CHILDREN.find((name) => lastUserText(req).includes(`Task:\nReport the first line of ${name}.txt`));
    onArrival(child ? "child" : "parent", req);
    const answer = (reply: SimReply): SimStep => ({ faults: [{ kind: "delay", ms: ANSWER_DELAY_MS }], reply });
    if (child) return answer(toolResults(req) === 0 ? { tool_calls: [call("read_file", { path: `${child}.txt` })] } : { content: `${child}: line 1 of ${child}` });
    const done = toolResults(req);
    if (done === 0) return answer({ tool_calls: [call("read_file", { path: "notes.md" })] });
    if (done > 1) return answer({ content: "All three reported." });
    const delegate = (name: string) => call("delegate_task", { task: `Report the first line of ${name}.txt, exactly as it is written.` });
    const read = call("read_file", { path: "notes.md", offset: 2 });
    const [a, b, c] = CHILDREN.map(delegate) as [ReturnType<typeof call>, ReturnType<typeof call>, ReturnType<typeof call>];
    return answer({ tool_calls: shape() === "parallel" ? [a, b, c, read, read] : [a, read, b, read, c] });
  };
}

export async function measureParallel(options: { runs: number; log: (line: string) => void }): Promise<ParallelResult> {
  let shape: ShapeName = "parallel";
  const clock = childrenClock(1);
  const sim = await startSimulator({ policy: policy(() => shape, clock.onArrival) });
  const env = { ...process.env, DEEPSEEK_API_KEY: "x", HEL_BASE_URL: sim.url };
  const result: ParallelResult = {
    parallel: { childrenMs: [], wallMs: [], peakRssMb: [] },
    sequence: { childrenMs: [], wallMs: [], peakRssMb: [] },
    firstHitShares: [],
    requestsPerRun: 0,
  };
  try {
    // Run 0 of each shape warms the page cache and is not counted.
    for (let i = 0; i <= options.runs; i++) {
      for (const name of ["parallel", "sequence"] as const) {
        shape = name;
        clock.reset();
        const project = await mkdtemp(join(tmpdir(), "hel-bench-parallel-"));
        try {
          const notes = Array.from({ length: 60 }, (_, n) => `- note ${n + 1}: service ${CHILDREN[n % 3]} listens on port ${8000 + n} behind the gateway.`);
          await writeFile(join(project, "notes.md"), `# Notes\n\n${notes.join("\n")}\n`);
          for (const child of CHILDREN) await writeFile(join(project, `${child}.txt`), `line 1 of ${child}\nline 2\n`);
          const before = sim.requests.length;
          const run = await runChild(process.execPath, [HEL_BIN, "-C", project, "--delegate", "full", INSTRUCTION], { env, resources: true });
          if (run.code !== 0 || !run.stdout.includes("All three reported.")) throw new Error(`the ${name} run failed (exit ${run.code}): ${run.stderr.trim()}`);
          const requests = sim.requests.slice(before);
          result.requestsPerRun = requests.length;
          if (i === 0) continue;
          const into = result[name];
          into.childrenMs.push(clock.span());
          into.wallMs.push(run.wallMs);
          if (run.peakRssMb !== null) into.peakRssMb.push(run.peakRssMb);
          if (name === "parallel") result.firstHitShares.push(...firstChildHitShares(requests, (text) => text.includes("Task:\nReport the first line")));
        } finally {
          await rm(project, { recursive: true, force: true });
        }
      }
    }
    options.log(`parallel: ${options.runs} runs of each shape, ${result.requestsPerRun} requests each`);
  } finally {
    await sim.close();
  }
  return result;
}
