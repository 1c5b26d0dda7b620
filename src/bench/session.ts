// Session save and load at 100 KB, 1 MB, 10 MB and 50 MB, one fresh child process per size (see
// session-probe.ts for what is measured). Contract: each size gets its own temporary project
// directory, deleted afterwards; fewer repetitions for the big sizes keep the bench short.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runChild } from "./procs.js";

const PROBE = fileURLToPath(new URL("./session-probe.js", import.meta.url));

export interface SessionSize {
  label: string;
  /** The size asked for; fileBytes is what was written. */
  targetBytes: number;
  fileBytes: number;
  messages: number;
  saveMs: number[];
  saveCpuMs: number[];
  loadMs: number[];
  loadCpuMs: number[];
  savePeakMb: number[];
  loadPeakMb: number[];
  /** Medians of the steps inside save and load, timed one by one (see session-probe.ts). */
  steps: Record<string, number>;
  /** Peak RSS of the whole child, snapshot building included. */
  childPeakRssMb: number | null;
}

export const SESSION_SIZES: readonly { label: string; bytes: number; reps: number }[] = [
  { label: "100 KB", bytes: 100_000, reps: 15 },
  { label: "1 MB", bytes: 1_000_000, reps: 11 },
  { label: "10 MB", bytes: 10_000_000, reps: 7 },
  { label: "50 MB", bytes: 50_000_000, reps: 3 },
];

export async function measureSessions(options: { log: (line: string) => void }): Promise<SessionSize[]> {
  const results: SessionSize[] = [];
  for (const size of SESSION_SIZES) {
    // The real path: the store compares the snapshot's cwd with the project directory.
    const dir = await realpath(await mkdtemp(join(tmpdir(), "hel-bench-session-")));
    try {
      const t0 = performance.now();
      const run = await runChild(process.execPath, ["--expose-gc", PROBE, dir, String(size.bytes), String(size.reps)], { resources: true });
      if (run.code !== 0) throw new Error(`session probe failed at ${size.label} (exit ${run.code}): ${run.stderr.trim()}`);
      const out = JSON.parse(run.stdout.trim()) as Omit<SessionSize, "label" | "targetBytes" | "childPeakRssMb">;
      results.push({ label: size.label, targetBytes: size.bytes, childPeakRssMb: run.peakRssMb, ...out });
      options.log(`session: ${size.label} (${out.messages} messages) × ${size.reps} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return results;
}
