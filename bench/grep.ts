// grep over large trees: hel's grep tool (one call, in a fresh child process) against GNU `grep -rnI`
// on the same files. Contract: two generated trees of the same shape, 5,000 and 50,000 text files of
// ~2 KB of code-like lines (in os.tmpdir(), deleted afterwards), where a rare pattern matches a few
// dozen lines, so both programs read every file and print little; plus this project's node_modules
// (hel's grep pointed into it, so it walks all of it). Runs alternate between hel and grep so drift
// in the machine's load hits both alike, after one unmeasured run of each warms the page cache.
// Reported per tree: median wall time of each (spawn → exit), hel's time inside the call, CPU time of
// the call and of grep, peak RSS of each whole process, and how far hel's RSS rose during the search.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runChild } from "./procs.js";

const PROBE = fileURLToPath(new URL("./grep-probe.js", import.meta.url));
const PATTERN = "needle_[0-9]+";

export interface GrepTree {
  /** For the JSON file's row keys. */
  key: string;
  label: string;
  files: number;
  matches: number;
  helWallMs: number[];
  helCallMs: number[];
  helCallCpuMs: number[];
  helPeakRssMb: number[];
  helSearchPeakMb: number[];
  grepWallMs: number[];
  grepCpuMs: number[];
  grepPeakRssMb: number[];
}

/** `files` files in directories of 100, 10 directories per parent: d<i>/d<j>/f<k>.ts. */
function writeTree(root: string, files: number): void {
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) lines.push(`  const value${i} = compute(${i}, "some text to make the line realistic");`);
  const body = lines.join("\n");
  for (let n = 0; n < files; n++) {
    const dir = join(root, `d${Math.floor(n / 1000)}`, `d${Math.floor(n / 100) % 10}`);
    if (n % 100 === 0) mkdirSync(dir, { recursive: true });
    const marker = n % 997 === 0 ? `\n// needle_${n}\n` : "\n";
    writeFileSync(join(dir, `f${n % 100}.ts`), `export function f${n}() {\n${body}${marker}}\n`);
  }
}

async function measure(tree: GrepTree, projectDir: string, path: string | undefined, runs: number): Promise<void> {
  const target = path === undefined ? projectDir : join(projectDir, path);
  const probeArgs = [PROBE, projectDir, PATTERN, ...(path === undefined ? [] : [path])];
  const grepArgs = ["-rnIE", PATTERN, target];
  for (let i = 0; i <= runs; i++) {
    const hel = await runChild(process.execPath, probeArgs, { resources: true });
    if (hel.code !== 0) throw new Error(`grep probe failed on ${tree.label} (exit ${hel.code}): ${hel.stderr.trim()}`);
    const grep = await runChild("grep", grepArgs, { resources: true });
    if (grep.code !== 0 && grep.code !== 1) throw new Error(`grep -rn failed on ${tree.label} (exit ${grep.code}): ${grep.stderr.trim()}`);
    const out = JSON.parse(hel.stdout.trim()) as { ms: number; cpuMs: number; searchPeakMb: number; matches: number };
    tree.matches = out.matches;
    if (i === 0) continue;
    tree.helWallMs.push(hel.wallMs);
    tree.helCallMs.push(out.ms);
    tree.helCallCpuMs.push(out.cpuMs);
    tree.helSearchPeakMb.push(out.searchPeakMb);
    if (hel.peakRssMb !== null) tree.helPeakRssMb.push(hel.peakRssMb);
    tree.grepWallMs.push(grep.wallMs);
    if (grep.cpuMs !== null) tree.grepCpuMs.push(grep.cpuMs);
    if (grep.peakRssMb !== null) tree.grepPeakRssMb.push(grep.peakRssMb);
  }
}

const emptyTree = (key: string, label: string, files: number): GrepTree => ({
  key,
  label,
  files,
  matches: 0,
  helWallMs: [],
  helCallMs: [],
  helCallCpuMs: [],
  helPeakRssMb: [],
  helSearchPeakMb: [],
  grepWallMs: [],
  grepCpuMs: [],
  grepPeakRssMb: [],
});

export async function measureGrep(options: { runs: number; projectRoot: string; log: (line: string) => void }): Promise<GrepTree[]> {
  const dir = await mkdtemp(join(tmpdir(), "hel-bench-grep-"));
  const trees = [emptyTree("5000", "5,000 files", 5_000), emptyTree("50000", "50,000 files", 50_000)];
  try {
    for (const tree of trees) {
      const t0 = performance.now();
      const root = join(dir, String(tree.files));
      writeTree(root, tree.files);
      options.log(`grep: wrote ${tree.label} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await measure(tree, root, undefined, options.runs);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const files = readdirSync(join(options.projectRoot, "node_modules"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  const modules = emptyTree("node_modules", `this project's node_modules (${files.toLocaleString("en-US")} files)`, files);
  await measure(modules, options.projectRoot, "node_modules", options.runs);
  trees.push(modules);
  options.log(`grep: ${options.runs} runs per tree`);
  return trees;
}
