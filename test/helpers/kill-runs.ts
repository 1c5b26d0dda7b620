// Runs hel on stdin lines against a simulator and kill -9s it at a given moment, once per moment: after
// that many of the run's requests, plus a few milliseconds, so each kill falls at a different point
// of the answer/save cycle however loaded the machine is.
import { spawn } from "node:child_process";
import type { Simulator } from "../../sim/index.js";
import { HEL, helEnv } from "./hel.js";
import { waitFor } from "./wait.js";

export interface KillMoment {
  afterRequests: number;
  extraMs: number;
}

export async function killRuns(sim: Simulator, args: readonly string[], lines: readonly string[], moments: readonly KillMoment[]): Promise<void> {
  for (const { afterRequests, extraMs } of moments) {
    const before = sim.requests.length;
    const child = spawn(process.execPath, [HEL, ...args], { env: helEnv(sim.url), stdio: ["pipe", "ignore", "ignore"] });
    child.stdin.on("error", () => {});
    child.stdin.write(lines.join("\n") + "\n");
    await waitFor(() => sim.requests.length - before >= afterRequests || child.exitCode !== null, `request ${afterRequests} of the run`, { everyMs: 1, timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, extraMs));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
  }
}
