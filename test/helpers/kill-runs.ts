// Runs hel on stdin lines against a simulator and kill -9s it at a given moment, once per moment: after
// that many of the run's requests, plus a few milliseconds, so each kill falls at a different point
// of the answer/save cycle however loaded the machine is. The locks of holders that are gone (or
// stopped) can then be aged past staleness, for the next run to take them over without waiting.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, utimes } from "node:fs/promises";
import { join } from "node:path";
import { LEASE_TIMING } from "../../src/session/lease.js";
import { sessionPaths, storeLockPath } from "../../src/session/paths.js";
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

/**
 * Makes every session lease and the store lock of `project` look untouched for longer than a lease
 * may be, as waiting out LEASE_TIMING.stale would: staleness is a lock's mtime, which only its holder
 * touches. For holders that cannot touch theirs, dead or stopped; a stopped one, woken, finds its lock
 * no longer its own, as it would after the wait.
 */
export async function ageLocks(project: string): Promise<void> {
  const past = new Date(Date.now() - LEASE_TIMING.stale - 2_000);
  const sessions = join(project, ".hel", "sessions");
  const ids = existsSync(sessions) ? await readdir(sessions) : [];
  for (const lock of [storeLockPath(project), ...ids.map((id) => sessionPaths(project, id).active)]) {
    if (existsSync(lock)) await utimes(lock, past, past);
  }
}
