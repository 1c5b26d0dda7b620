// read_file's first page of a 1 GB file against a 1 MB file, each call in a fresh child process.
// Contract: both files are real text (numbered lines of ~80 bytes, no holes), written to os.tmpdir()
// and deleted afterwards; runs alternate between the two sizes so drift in the machine's load hits
// both alike. Reported per size: median call time, median peak RSS of the whole child (GNU time, or
// /proc polling), and median rise of the child's VmHWM over the read alone.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runChild } from "./procs.js";

const PROBE = fileURLToPath(new URL("./read-probe.js", import.meta.url));

export interface ReadSize {
  label: string;
  bytes: number;
  ms: number[];
  peakRssMb: number[];
  readPeakMb: number[];
  pageBytes: number;
}

/** Writes `bytes` of numbered text lines, in 4 MB blocks so writing 1 GB takes about a second. */
async function writeTextFile(path: string, bytes: number): Promise<void> {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < 4 * 1024 * 1024; i++) {
    const line = `${String(i).padStart(7, "0")} const value${i % 97} = compute(${i}, "some text to make the line realistic");\n`;
    lines.push(line);
    size += line.length;
  }
  const block = Buffer.from(lines.join(""));
  const fh = await open(path, "w");
  try {
    for (let written = 0; written < bytes; ) {
      const n = Math.min(block.length, bytes - written);
      await fh.write(block, 0, n, written);
      written += n;
    }
  } finally {
    await fh.close();
  }
}

export async function measureReadFile(options: { runs: number; log: (line: string) => void }): Promise<ReadSize[]> {
  const dir = await mkdtemp(join(tmpdir(), "hel-bench-read-"));
  const sizes: ReadSize[] = [
    { label: "1 MB", bytes: 1024 * 1024, ms: [], peakRssMb: [], readPeakMb: [], pageBytes: 0 },
    { label: "1 GB", bytes: 1024 * 1024 * 1024, ms: [], peakRssMb: [], readPeakMb: [], pageBytes: 0 },
  ];
  try {
    const t0 = performance.now();
    for (const s of sizes) await writeTextFile(join(dir, `file-${s.bytes}.txt`), s.bytes);
    options.log(`read_file: wrote 1 MB + 1 GB text files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    for (let i = 0; i < options.runs; i++) {
      for (const s of sizes) {
        const run = await runChild(process.execPath, [PROBE, dir, `file-${s.bytes}.txt`], { resources: true });
        if (run.code !== 0) throw new Error(`read probe failed on ${s.label} (exit ${run.code}): ${run.stderr.trim()}`);
        const out = JSON.parse(run.stdout.trim()) as { ms: number; readPeakMb: number; bytes: number };
        s.ms.push(out.ms);
        s.readPeakMb.push(out.readPeakMb);
        s.pageBytes = out.bytes;
        if (run.peakRssMb !== null) s.peakRssMb.push(run.peakRssMb);
      }
    }
    options.log(`read_file: ${options.runs} child runs per size`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return sizes;
}
