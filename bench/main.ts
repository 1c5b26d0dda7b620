// `npm run bench`: hel's speed and memory table. Contract: prints medians and ratios next to their
// targets (✓/✗ for the reader, never an assertion: a missed target does not fail the run), writes the
// same numbers to bench-results.json in the current directory, and with --json prints that JSON on
// stdout instead of the table. Progress goes to stderr. `--only <name>,…` runs a subset of the sections
// (sections/index.ts), still in the table's order. It is not part of the tests. A section that cannot be
// measured is reported and makes the exit status 1; the other sections still run.
import { cpus, loadavg } from "node:os";
import { writeFile } from "node:fs/promises";
import { measureMachine } from "./machine.js";
import { rssMethod } from "./procs.js";
import { SECTIONS, type BenchContext } from "./sections/index.js";
import { fmt, renderTable, toJson, type Section } from "./stats.js";

const NAMES = SECTIONS.map((s) => s.name);
/** The names in the order the usage line has always listed them: mcp last, though it runs right after startup. */
const LISTED = [...NAMES.filter((n) => n !== "mcp"), "mcp"];

function parseFlags(argv: string[]): { json: boolean; only: Set<string> } {
  let json = false;
  let only = new Set<string>(NAMES);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json") json = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const list = a.includes("=") ? a.slice("--only=".length) : (argv[++i] ?? "");
      const names = list.split(",").filter(Boolean);
      const bad = names.filter((n) => !NAMES.includes(n));
      if (bad.length > 0 || names.length === 0) usage(`--only takes a comma-separated list of ${LISTED.join(", ")}`);
      only = new Set(names);
    } else usage(`unknown option ${a}`);
  }
  return { json, only };
}

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nusage: node out/bench/main.js [--json] [--only ${LISTED.join(",")}]\n`);
  process.exit(2);
}

const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);

async function main(): Promise<number> {
  const { json, only } = parseFlags(process.argv.slice(2));
  const startedAt = new Date();
  const loadStart = loadavg();
  const machine = measureMachine();
  const sections: Section[] = [];
  const errors: string[] = [];
  const ctx: BenchContext = { only, log };
  for (const section of SECTIONS) {
    const name = [section.name, ...(section.serves ?? [])].find((n) => only.has(n));
    if (name === undefined) continue;
    try {
      const s = await section.run(ctx);
      sections.push(...(Array.isArray(s) ? s : [s]));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      errors.push(`${name}: ${message}`);
      log(`${name} failed: ${message}`);
      sections.push({ title: section.title, rows: [], footnotes: [`not measured: ${message.split("\n")[0]}`] });
    }
  }

  const loadEnd = loadavg();
  const meta = {
    date: startedAt.toISOString(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? "unknown"} × ${cpus().length}`,
    loadavg_start: loadStart.map((x) => Number(x.toFixed(2))),
    loadavg_end: loadEnd.map((x) => Number(x.toFixed(2))),
    rss_method: rssMethod(),
    fresh_memory_ms_per_mb: Number(machine.freshMemoryMsPerMb.toFixed(3)),
    touched_memory_ms_per_mb: Number(machine.touchedMemoryMsPerMb.toFixed(3)),
    duration_s: Number(((Date.now() - startedAt.getTime()) / 1000).toFixed(1)),
    errors,
  };
  const data = toJson(sections, meta);
  await writeFile("bench-results.json", `${JSON.stringify(data, null, 2)}\n`);
  if (json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else {
    process.stdout.write(
      `hel bench — ${meta.date} · node ${meta.node} · ${meta.cpu} · ${meta.duration_s} s\n` +
        `load average ${loadStart.map((x) => x.toFixed(2)).join(" ")} at the start, ${loadEnd.map((x) => x.toFixed(2)).join(" ")} at the end (above ${cpus().length} means other work shared the CPUs)\n` +
        `fresh memory costs ${fmt(machine.freshMemoryMsPerMb, 2)} ms/MB to touch the first time, ${fmt(machine.touchedMemoryMsPerMb, 2)} ms/MB after (page faults)\n\n`,
    );
    process.stdout.write(`${renderTable(sections)}\n\nNumbers also in bench-results.json.\n`);
  }
  return errors.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
