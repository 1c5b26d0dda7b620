// Session save and load at 100 KB, 1 MB, 10 MB and 50 MB, two fresh child processes per size, one
// saving and one loading what it saved (see session-probe.ts for what is measured). Contract: each size gets its own temporary project
// directory, deleted afterwards. 10 MB and 50 MB take the same number of repetitions: the first loads
// in a process still grow the heap and warm the code, so a size with fewer repetitions would have its
// median land nearer those and look slower per MB than it is.
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
  /** Saves of a just-loaded snapshot with one more exchange: a resume's first save. */
  resumeSaveMs: number[];
  /** Medians of the steps inside save and load, timed one by one (see session-probe.ts). */
  steps: Record<string, number>;
  /** Peak RSS of the saving child, snapshot building included. */
  childPeakRssMb: number | null;
  /** Peak RSS of the loading child: what resuming a session of this size costs. */
  loadPeakRssMb: number | null;
}

export const SESSION_SIZES: readonly { label: string; bytes: number; reps: number }[] = [
  { label: "100 KB", bytes: 100_000, reps: 15 },
  { label: "1 MB", bytes: 1_000_000, reps: 11 },
  { label: "10 MB", bytes: 10_000_000, reps: 7 },
  { label: "50 MB", bytes: 50_000_000, reps: 7 },
];

export async function measureSessions(options: { log: (line: string) => void }): Promise<SessionSize[]> {
  const results: SessionSize[] = [];
  for (const size of SESSION_SIZES) {
    // The real path: the store compares the snapshot's cwd with the project directory.
    const dir = await realpath(await mkdtemp(join(tmpdir(), "hel-bench-session-")));
    try {
      const t0 = performance.now();
      const probe = async (args: string[]) => {
        const run = await runChild(process.execPath, ["--expose-gc", PROBE, ...args], { resources: true });
        if (run.code !== 0) throw new Error(`session probe failed at ${size.label} (exit ${run.code}): ${run.stderr.trim()}`);
        return { out: JSON.parse(run.stdout.trim()) as Record<string, unknown>, peakRssMb: run.peakRssMb };
      };
      const saved = await probe(["save", dir, String(size.bytes), String(size.reps)]);
      const loaded = await probe(["load", dir, String(saved.out.id), String(size.reps)]);
      const { id: _, steps: saveSteps, ...saves } = saved.out as { id: string; steps: Record<string, number> };
      const { steps: loadSteps, ...loads } = loaded.out as { steps: Record<string, number> };
      const result = { ...saves, ...loads, steps: { ...saveSteps, ...loadSteps } } as Omit<SessionSize, "label" | "targetBytes" | "childPeakRssMb" | "loadPeakRssMb">;
      results.push({ label: size.label, targetBytes: size.bytes, childPeakRssMb: saved.peakRssMb, loadPeakRssMb: loaded.peakRssMb, ...result });
      options.log(`session: ${size.label} (${result.messages} messages) × ${size.reps} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return results;
}
