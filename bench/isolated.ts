// Isolated writers: the built CLI with --delegate full against the simulator in a git repository, every
// answer held back by a fixed delay, as a model's would be. Contract: the parent sends one message with
// three delegate_task calls, each `isolation: "worktree"`, and two read_file calls, either with the three
// delegations side by side (run at the same time) or with a read_file between each two (one after
// another); each child edits its own file in its worktree and answers, and its work is merged into the
// project. Measured per run: the children's time (from the first child request's arrival to the parent's
// next request's arrival: worktrees made, children run, merges done) and, for the parallel runs, the
// cache-hit share of each child's first request. A run counts only when every edit landed in the
// project and every result says `applied`. The two shapes alternate, so a slower moment of the shared
// machine falls on both.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN } from "../scripts/hel-bin.js";
import { lastUserText } from "../sim/policies.js";
import { startSimulator, type SimReply, type SimStep } from "../sim/index.js";
import type { ChatRequest } from "../src/wire/messages.js";
import { ANSWER_DELAY_MS, call, childrenClock, firstChildHitShares, toolResults } from "./parallel.js";
import { runChild } from "./procs.js";

const CHILDREN = ["alpha", "beta", "gamma"] as const;
const INSTRUCTION = "Have three subagents at once, each in its own worktree, set the first line of alpha.txt, beta.txt and gamma.txt.";

export interface IsolatedResult {
  parallelMs: number[];
  sequenceMs: number[];
  /** Cache-hit tokens / prompt tokens of each parallel child's first request. */
  firstHitShares: number[];
  requestsPerRun: number;
}

type ShapeName = "parallel" | "sequence";

const taskOf = (name: string) => `Set the first line of ${name}.txt to "${name} done".`;

function policy(shape: () => ShapeName, onArrival: (who: "parent" | "child", req: ChatRequest) => void) {
  return (req: ChatRequest): SimStep => {
    const child = CHILDREN.find((name) => lastUserText(req).includes(`Task:\n${taskOf(name)}`));
    onArrival(child ? "child" : "parent", req);
    const answer = (reply: SimReply): SimStep => ({ faults: [{ kind: "delay", ms: ANSWER_DELAY_MS }], reply });
    if (child) return answer(toolResults(req) === 0 ? { tool_calls: [call("search_replace", { path: `${child}.txt`, old_text: `line 1 of ${child}`, new_text: `${child} done` })] } : { content: `${child} set` });
    if (toolResults(req) > 0) {
      const merged = req.messages.filter((m) => m.role === "tool" && String(m.content).includes("Merge: applied")).length;
      return answer({ content: merged === CHILDREN.length ? "All three landed." : `Only ${merged} landed.` });
    }
    const delegate = (name: string) => call("delegate_task", { task: taskOf(name), isolation: "worktree" });
    const read = call("read_file", { path: "notes.md" });
    const [a, b, c] = CHILDREN.map(delegate) as [ReturnType<typeof call>, ReturnType<typeof call>, ReturnType<typeof call>];
    return answer({ tool_calls: shape() === "parallel" ? [a, b, c, read, read] : [a, read, b, read, c] });
  };
}

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@hel", ...args], { cwd: dir, stdio: "ignore" });

export async function measureIsolated(options: { runs: number; log: (line: string) => void }): Promise<IsolatedResult> {
  let shape: ShapeName = "parallel";
  const clock = childrenClock(0);
  const sim = await startSimulator({ policy: policy(() => shape, clock.onArrival) });
  // hel's worktree stores go to a state folder of the bench's own, not the user's.
  const state = await mkdtemp(join(tmpdir(), "hel-bench-state-"));
  const env = { ...process.env, DEEPSEEK_API_KEY: "x", HEL_BASE_URL: sim.url, XDG_STATE_HOME: state };
  const result: IsolatedResult = { parallelMs: [], sequenceMs: [], firstHitShares: [], requestsPerRun: 0 };
  try {
    // Run 0 of each shape warms the page cache and hel's worktree store, and is not counted.
    for (let i = 0; i <= options.runs; i++) {
      for (const name of ["parallel", "sequence"] as const) {
        shape = name;
        clock.reset();
        const project = await mkdtemp(join(tmpdir(), "hel-bench-isolated-"));
        try {
          await writeFile(join(project, "notes.md"), "# Notes\n");
          for (const child of CHILDREN) await writeFile(join(project, `${child}.txt`), `line 1 of ${child}\nline 2\n`);
          git(project, "init", "--quiet");
          git(project, "add", "-A");
          git(project, "commit", "--quiet", "-m", "start");
          const before = sim.requests.length;
          const run = await runChild(process.execPath, [HEL_BIN, "-C", project, "--delegate", "full", INSTRUCTION], { env });
          if (run.code !== 0 || !run.stdout.includes("All three landed.")) throw new Error(`the ${name} run failed (exit ${run.code}): ${run.stdout.trim()} ${run.stderr.trim()}`);
          for (const child of CHILDREN) {
            if (!(await readFile(join(project, `${child}.txt`), "utf8")).startsWith(`${child} done\n`)) throw new Error(`the ${name} run did not land ${child}'s edit`);
          }
          const requests = sim.requests.slice(before);
          result.requestsPerRun = requests.length;
          if (i === 0) continue;
          (name === "parallel" ? result.parallelMs : result.sequenceMs).push(clock.span());
          if (name === "parallel") result.firstHitShares.push(...firstChildHitShares(requests, (text) => CHILDREN.some((c) => text.includes(`Task:\n${taskOf(c)}`))));
        } finally {
          await rm(project, { recursive: true, force: true });
        }
      }
    }
    options.log(`isolated: ${options.runs} runs of each shape, ${result.requestsPerRun} requests each`);
  } finally {
    await sim.close();
    await rm(state, { recursive: true, force: true });
  }
  return result;
}
