// The incremental build as a script meets it: with no source changed since the last build, how long
// scripts/build.mjs takes, and how long an npm script that builds first takes to do its job. Contract:
// one child process per run, from just before spawn() to its exit, in the checkout itself (which
// `npm run bench` has just built, so there is nothing to do).
import { join } from "node:path";
import { PROJECT_ROOT } from "../scripts/hel-bin.js";
import { runChild } from "./procs.js";

export interface BuildTimes {
  buildMs: number[];
  simHelpMs: number[];
  costModelMs: number[];
}

async function times(runs: number, command: string, args: string[]): Promise<number[]> {
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await runChild(command, args, { cwd: PROJECT_ROOT });
    if (run.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${run.code}: ${run.stderr.trim().split("\n")[0] ?? ""}`);
    walls.push(run.wallMs);
  }
  return walls;
}

export async function measureBuilds(options: { runs: number; log: (line: string) => void }): Promise<BuildTimes> {
  options.log("builds: a build with nothing to do, npm run sim -- --help, npm run evals -- cost-model");
  return {
    buildMs: await times(options.runs, process.execPath, [join(PROJECT_ROOT, "scripts", "build.mjs"), "--dev"]),
    simHelpMs: await times(options.runs, "npm", ["run", "-s", "sim", "--", "--help"]),
    costModelMs: await times(options.runs, "npm", ["run", "-s", "evals", "--", "cost-model"]),
  };
}
