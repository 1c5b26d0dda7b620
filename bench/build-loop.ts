// The seed article's build loop run three ways on the simulator: three failing builds with long logs,
// then a passing one, then ten ordinary steps; the episode left inline, folded by hel (auto-fold), or
// compacted at a threshold. Per arm: prompt tokens, uncached tokens, dollars over the whole task, the
// largest request, the prompt tokens of the steps after the episode, and how much of one failing
// build's log the view keeps.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD_COMMAND, writeBuildLoopProject } from "../sim/build-loop.js";
import { startSimulator } from "../sim/index.js";
import { lastUserText } from "../sim/policies.js";
import { countTokens } from "../sim/tokens.js";
import type { ChatRequest } from "../src/wire/messages.js";
import { helOnLines } from "./context.js";

/** deepseek-flash, off-peak, US dollars per million tokens. */
const PRICE = { hit: 0.003, miss: 0.15, output: 0.6 };
/** Lines per failing build log: a log of the length the seed article's loop prints (its tokens are a row). */
const LOG_LINES = 330;
const STEPS = 10;

export const BUILD_LOOP_ARMS = {
  inline: ["--auto-fold", "off", "--compact-at", "0"],
  "auto-fold": ["--compact-at", "0"],
  compacted: ["--auto-fold", "off", "--compact-at", "10000"],
} as const;
export type BuildLoopArm = keyof typeof BUILD_LOOP_ARMS;

export interface BuildLoopResult {
  requests: number;
  promptTokens: number;
  uncachedTokens: number;
  costUsd: number;
  largestPrompt: number;
  /** The requests of the ordinary steps after the episode. */
  afterPromptTokens: number;
  /** The first failing build's whole log, and what of it the model's view kept, in the simulator's tokens. */
  logTokens: number;
  keptLogTokens: number;
}

export async function measureBuildLoop(arm: BuildLoopArm): Promise<BuildLoopResult> {
  const project = await mkdtemp(join(tmpdir(), "hel-bench-loop-"));
  try {
    await writeBuildLoopProject(project, LOG_LINES);
    const log = await buildOutput(project);
    const sim = await startSimulator({ policy: "build-loop" });
    try {
      const lines = ["make the build pass", ...Array.from({ length: STEPS }, (_, i) => `step ${i + 1}: go on with the export`)];
      await helOnLines(sim.url, ["-C", project, "--effort", "none", ...BUILD_LOOP_ARMS[arm]], lines);
      const answered = sim.requests.filter((r) => r.usage);
      const sum = (f: (u: NonNullable<(typeof answered)[number]["usage"]>) => number) => answered.reduce((n, r) => n + f(r.usage!), 0);
      const prompt = sum((u) => u.prompt_tokens);
      const hit = sum((u) => u.prompt_cache_hit_tokens);
      const after = answered.filter((r) => /^step \d+/.test(lastUserText(r.body as ChatRequest)));
      return {
        requests: answered.length,
        promptTokens: prompt,
        uncachedTokens: prompt - hit,
        costUsd: (hit * PRICE.hit + (prompt - hit) * PRICE.miss + sum((u) => u.completion_tokens) * PRICE.output) / 1e6,
        largestPrompt: Math.max(...answered.map((r) => r.usage!.prompt_tokens)),
        afterPromptTokens: after.reduce((n, r) => n + r.usage!.prompt_tokens, 0),
        logTokens: countTokens(log),
        keptLogTokens: countTokens(firstBuildResult(answered.map((r) => r.body as ChatRequest))),
      };
    } finally {
      await sim.close();
    }
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

/** What the first failing build prints, stdout and stderr together, as the model would see it whole. */
function buildOutput(project: string): Promise<string> {
  return new Promise((resolve) => {
    execFile("sh", ["-c", `${BUILD_COMMAND} 2>&1`], { cwd: project, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout) => resolve(stdout));
  });
}

/** The result of the first build in the view: the first tool message that reports a failed level-0 build. */
function firstBuildResult(bodies: readonly ChatRequest[]): string {
  for (const body of bodies) {
    for (const m of body.messages) {
      if (m.role === "tool" && String(m.content).includes("build failed at level 0")) return String(m.content);
    }
  }
  throw new Error("no request shows the first failing build's result");
}
