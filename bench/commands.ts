// run_command's cost. Contract: (1) overhead — `true` through the tool in this process (under --access
// full, and sandboxed under edit when bubblewrap exists) against `bash -c true` and against the same
// bubblewrap command line spawned directly, runs interleaved so the machine's load hits all alike, each
// timed from the call to its return (for a spawn, to the close of its pipes); (2) a command printing
// 100 MB through the built CLI, sandboxed as a user gets it, with the peak RSS of the hel process.
import { mkdtemp, realpath, rm, stat, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN } from "../scripts/hel-bin.js";
import { startSimulator } from "../sim/index.js";
import type { ChatRequest } from "../src/wire/messages.js";
import { bwrapArgs } from "../src/tools/command/bwrap.js";
import { bwrapFeatures, findSandboxProgram } from "../src/tools/command/sandbox.js";
import { sandboxPolicy } from "../src/tools/command/sandbox-policy.js";
import { detachedContext } from "../src/tools/detached-context.js";
import { runCommandTool } from "../src/tools/command/run-command.js";
import type { Access, ToolContext } from "../src/tools/types.js";
import { runChild } from "./procs.js";

export interface CommandOverhead {
  bashMs: number[];
  fullMs: number[];
  /** Empty when there is no bubblewrap. */
  bwrapMs: number[];
  sandboxedMs: number[];
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

export async function measureCommandOverhead(options: { runs: number; log: (line: string) => void }): Promise<CommandOverhead> {
  const project = await realpath(await mkdtemp(join(tmpdir(), "hel-bench-cmd-")));
  const result: CommandOverhead = { bashMs: [], fullMs: [], bwrapMs: [], sandboxedMs: [] };
  try {
    const ctx = (access: Access): ToolContext => detachedContext(project, access, "bench");
    const bwrap = findSandboxProgram(project);
    const bwrapArgv = bwrap ? bwrapArgs(sandboxPolicy(project, "edit"), project, ["/bin/bash", "-c", "true"], bwrapFeatures(bwrap.path)) : [];
    const steps: [number[], () => Promise<unknown>][] = [
      [result.bashMs, () => runChild("bash", ["-c", "true"])],
      [result.fullMs, () => runCommandTool.run({ command: "true" }, ctx("full"))],
    ];
    if (bwrap) {
      steps.push([result.bwrapMs, () => runChild(bwrap.path, bwrapArgv)]);
      steps.push([result.sandboxedMs, () => runCommandTool.run({ command: "true" }, ctx("edit"))]);
    }
    // One unmeasured round: modules loaded, files in the page cache.
    for (const [, step] of steps) await step();
    for (let i = 0; i < options.runs; i++) for (const [samples, step] of steps) samples.push(await timed(step));
    options.log(`run_command: ${options.runs} interleaved runs of ${steps.length} ways to run \`true\`${bwrap ? "" : " (no bubblewrap: sandboxed rows skipped)"}`);
  } finally {
    await rm(project, { recursive: true, force: true });
  }
  return result;
}

export interface BigOutput {
  peakRssMb: number[];
  wallMs: number[];
  /** Bytes of the spill file of the last run: the whole output, kept on disk. */
  spillBytes: number;
  sandboxed: boolean;
}

export const BIG_OUTPUT_BYTES = 100_000_000;

export async function measureBigOutput(options: { runs: number; log: (line: string) => void }): Promise<BigOutput> {
  const command = `yes 'a line of build output, about sixty bytes long, as a compiler writes' | head -c ${BIG_OUTPUT_BYTES}`;
  const sim = await startSimulator({
    policy: (req: ChatRequest) => (req.messages.at(-1)?.role === "tool" ? { content: "It printed a lot." } : { tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command }) }] }),
  });
  const sandboxed = findSandboxProgram("/") !== null;
  const result: BigOutput = { peakRssMb: [], wallMs: [], spillBytes: 0, sandboxed };
  try {
    for (let i = 0; i < options.runs; i++) {
      const project = await realpath(await mkdtemp(join(tmpdir(), "hel-bench-big-")));
      try {
        const env = { ...process.env, DEEPSEEK_API_KEY: "x", HEL_BASE_URL: sim.url };
        const access = sandboxed ? "edit" : "full";
        const run = await runChild(process.execPath, [HEL_BIN, "-C", project, "--tools", "run_command", "--access", access, "print a lot"], { env, resources: true });
        if (run.code !== 0) throw new Error(`hel exited ${run.code}: ${run.stderr.trim().split("\n").pop()}`);
        result.wallMs.push(run.wallMs);
        if (run.peakRssMb !== null) result.peakRssMb.push(run.peakRssMb);
        const sessions = join(project, ".hel", "sessions");
        const [id] = await readdir(sessions);
        const spill = join(sessions, id!, "spill");
        const [file] = await readdir(spill);
        result.spillBytes = (await stat(join(spill, file!))).size;
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    }
    options.log(`run_command: ${options.runs} runs of a ${BIG_OUTPUT_BYTES / 1e6} MB command through the CLI`);
  } finally {
    await sim.close();
  }
  return result;
}
