// `npm run bench`: hel's speed and memory table. Contract: prints medians and ratios next to their
// targets (✓/✗ for the reader, never an assertion: a missed target does not fail the run), writes the
// same numbers to bench-results.json in the current directory, and with --json prints that JSON on
// stdout instead of the table. Progress goes to stderr. `--only harness,startup,demo,version,read,session,grep,commands,parallel,checkpoints,build,mcp`
// runs a subset. It is not part of the tests. A section that cannot be measured is reported and
// makes the exit status 1; the other sections still run.
import { cpus, loadavg } from "node:os";
import { writeFile } from "node:fs/promises";
import { BIG_OUTPUT_BYTES, measureBigOutput, measureCommandOverhead } from "./commands.js";
import { measureGrep } from "./grep.js";
import { measureBuilds } from "./build.js";
import { measureCheckpoints } from "./checkpoints.js";
import { measureHarness, type HarnessSize } from "./harness.js";
import { ANSWER_DELAY_MS, measureParallel } from "./parallel.js";
import { measureMachine } from "./machine.js";
import { rssMethod } from "./procs.js";
import { measureReadFile } from "./read-file.js";
import { PROJECT_ROOT } from "../scripts/hel-bin.js";
import { measureSessions } from "./session.js";
import { measureEpisode, measureViewChanges } from "./context.js";
import { BUILD_LOOP_ARMS, measureBuildLoop, type BuildLoopArm, type BuildLoopResult } from "./build-loop.js";
import { median, percentile, renderTable, toJson, type Row, type Section } from "./stats.js";
import { AGENT_FILES, LINK_RTT_MS, measureDemo, measureStartup, RESUME_BYTES, SKILL_COUNT } from "./startup.js";
import { measureMcpStartup } from "./mcp.js";

const SECTIONS = ["harness", "startup", "demo", "version", "read", "session", "context", "build-loop", "grep", "commands", "parallel", "checkpoints", "build", "mcp"] as const;
type SectionName = (typeof SECTIONS)[number];

/** "a / b ms (r×)": two times and their ratio. */
const ratioNote = (a: number, b: number): string => `${fmt(a, 0)} / ${fmt(b, 0)} ms (${fmt(a / b, 3)}×)`;

/**
 * A start against the plain one, by same-moment pairs (startup.ts): the median of the pairs' ratios,
 * their quartiles beside it, and, when the same starts were also run one after another (`serial`),
 * those runs' medians.
 */
function pairRow(key: string, label: string, ratios: readonly number[], cpuRatios: readonly number[], serial: { runs: readonly number[]; plain: readonly number[] } | null, target = true): Row {
  const cpu = cpuRatios.length > 0 ? `; CPU by then ${fmt(median(cpuRatios), 3)}× (quartiles ${fmt(percentile(cpuRatios, 25), 3)}–${fmt(percentile(cpuRatios, 75), 3)})` : "";
  return {
    key,
    label,
    value: median(ratios),
    unit: "x",
    ...(target ? { target: { kind: "under", limit: 1.05, unit: "x" } as const } : {}),
    note: `${ratios.length} pairs, quartiles ${fmt(percentile(ratios, 25), 3)}–${fmt(percentile(ratios, 75), 3)}${cpu}${serial ? `; one after another, medians ${ratioNote(median(serial.runs), median(serial.plain))}` : ""}`,
    extra: {
      pair_quartile_low: percentile(ratios, 25),
      pair_quartile_high: percentile(ratios, 75),
      ...(serial ? { own_share_median_ms: median(serial.runs) - median(serial.plain) } : {}),
      ...(cpuRatios.length > 0 ? { cpu_pair_median: median(cpuRatios) } : {}),
    },
  };
}

function parseFlags(argv: string[]): { json: boolean; only: Set<SectionName> } {
  let json = false;
  let only = new Set<SectionName>(SECTIONS);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json") json = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const list = a.includes("=") ? a.slice("--only=".length) : (argv[++i] ?? "");
      const names = list.split(",").filter(Boolean);
      const bad = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
      if (bad.length > 0 || names.length === 0) usage(`--only takes a comma-separated list of ${SECTIONS.join(", ")}`);
      only = new Set(names as SectionName[]);
    } else usage(`unknown option ${a}`);
  }
  return { json, only };
}

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nusage: node out/bench/main.js [--json] [--only ${SECTIONS.join(",")}]\n`);
  process.exit(2);
}

const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);
const mb = (bytes: number): string => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} KB`);
const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
const pick = (o: Record<string, number>, prefix: string): Record<string, number> =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k.startsWith(prefix)));

function harnessSection(sizes: HarnessSize[]): Section {
  const rows: Row[] = [];
  for (const s of sizes) {
    const at1000 = s.messages >= 1000;
    const target = at1000 ? ({ kind: "under", limit: 5, unit: "ms" } as const) : undefined;
    const label = `${s.messages.toLocaleString("en-US")} msgs (${mb(s.historyBytes)})`;
    rows.push({ key: `harness.loop.${s.messages}`, label: `${label}: loop, response → request event`, value: median(s.loop), unit: "ms", ...(target ? { target } : {}), note: `${s.loop.length} gaps` });
    rows.push({
      key: `harness.wire.${s.messages}`,
      label: `${label}: + SDK/undici, response → body sent`,
      value: median(s.wire),
      unit: "ms",
      ...(target ? { target } : {}),
      note: `SDK ${fmt(median(s.sdk), 2)} + undici send ${fmt(median(s.send), 2)} ms; CPU ${fmt(median(s.wireCpu), 2)} ms`,
      extra: { sdk_ms: median(s.sdk), send_ms: median(s.send), cpu_ms: median(s.wireCpu) },
    });
    rows.push({ key: `harness.whole.${s.messages}`, label: `${label}: last byte in → body sent`, value: median(s.whole), unit: "ms" });
  }
  return {
    title: "1. Harness time per model turn (tools excluded)",
    rows,
    footnotes: [
      "In-process runTurn + real model client → simulator in its own process over HTTP; 5 bench_noop calls per turn, first turn per size discarded.",
      "loop = `response` event → next `request` event (hel's agent loop); body sent = undici request:bodySent (diagnostics_channel),",
      "so it adds the openai SDK building the request and hel's fetch adapter (SDK, up to undici request:create) and undici's body encoding + socket",
      "write (send); last byte in = undici request:trailers. Target column: the brief's bound, applied to both readings at 1,000 messages.",
      "CPU = process.cpuUsage() over the same gap: what the gap costs when the machine is not shared.",
    ],
  };
}

async function main(): Promise<number> {
  const { json, only } = parseFlags(process.argv.slice(2));
  const startedAt = new Date();
  const loadStart = loadavg();
  const machine = measureMachine();
  const sections: Section[] = [];
  const errors: string[] = [];
  const attempt = async (name: SectionName, title: string, run: () => Promise<Section | Section[]>): Promise<void> => {
    if (!only.has(name)) return;
    try {
      const s = await run();
      sections.push(...(Array.isArray(s) ? s : [s]));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      errors.push(`${name}: ${message}`);
      log(`${name} failed: ${message}`);
      sections.push({ title, rows: [], footnotes: [`not measured: ${message.split("\n")[0]}`] });
    }
  };

  await attempt("harness", "1. Harness time per model turn", async () =>
    harnessSection(await measureHarness({ sizes: [10, 100, 1000], turns: (n) => (n >= 1000 ? 6 : n >= 100 ? 12 : 16), steps: 5, log })),
  );

  let nodeBare: number[] = [];
  let nodeBareCpu: number[] = [];
  let versionMs: number[] = [];
  let versionCpu: number[] = [];
  if (only.has("startup") || only.has("version")) {
    // One set of child runs serves both sections: the `node -e 0` baseline is shared.
    await attempt(only.has("startup") ? "startup" : "version", "2. Start to first request", async (): Promise<Section | Section[]> => {
      const r = await measureStartup({
        runs: only.has("startup") ? 15 : 0,
        resumeRuns: only.has("startup") ? 7 : 0,
        agentRuns: only.has("startup") ? 12 : 0,
        skillRuns: only.has("startup") ? 12 : 0,
        pairRuns: only.has("startup") ? 30 : 0,
        versionRuns: only.has("version") ? 15 : 0,
        log,
      });
      nodeBare = r.nodeBareMs;
      nodeBareCpu = r.nodeBareCpuMs;
      versionMs = r.versionMs;
      versionCpu = r.versionCpuMs;
      if (!only.has("startup")) return [];
      const first = median(r.firstRequestMs);
      /** The floor added to the plain `--delegate` start, as a ratio to set beside the pairs'. */
      const floorRatio = (median(r.noAgentsMs) + median(r.statFloorMs)) / median(r.noAgentsMs);
      /** What the link made of a start's first request, against the same pairs on localhost. */
      const linkAdded = median(r.linkPlainMs) - median(r.pairPlainMs);
      return {
        title: "2. Start to first request (built CLI `hel -C <tmp> hi`)",
        rows: [
          { key: "startup.first_request", label: "spawn → first request at the simulator", value: first, unit: "ms", target: { kind: "under", limit: 250, unit: "ms" }, note: `${r.firstRequestMs.length} runs` },
          {
            key: "startup.first_request_cpu",
            label: "  CPU time of hel by then (all threads)",
            value: median(r.firstRequestCpuMs),
            unit: "ms",
            note: `main thread waited ${fmt(median(r.firstRequestWaitMs))} ms for a CPU`,
            extra: { main_thread_runqueue_wait_ms: median(r.firstRequestWaitMs) },
          },
          { key: "startup.node_bare", label: "baseline: `node -e 0`, spawn → exit", value: median(r.nodeBareMs), unit: "ms", note: `${r.nodeBareMs.length} runs; CPU ${fmt(median(r.nodeBareCpuMs), 0)} ms` },
          {
            key: "startup.resume_10mb",
            label: `\`hel --resume <id> hi\` of a ${mb(RESUME_BYTES)} session: spawn → first request`,
            value: median(r.resumeMs),
            unit: "ms",
            note: `${r.resumeMs.length} runs; the resume's own share: ${fmt(median(r.resumeMs) - first, 0)} ms over a plain start`,
            extra: { resume_over_plain_start_ms: median(r.resumeMs) - first },
          },
          pairRow("startup.noise_ratio", "  the same start against itself (what the machine alone makes of a ratio)", r.pairRatios.noise, r.pairCpuRatios.noise, { runs: r.firstRequestMs, plain: r.firstRequestMs }, false),
          { key: "startup.skills", label: `with ${SKILL_COUNT} skills in .hel/skills: spawn → first request`, value: median(r.skillsMs), unit: "ms", note: `${r.skillsMs.length} runs, interleaved` },
          pairRow("startup.skills.ratio", `  ratio ${SKILL_COUNT} skills / none`, r.pairRatios.skills, r.pairCpuRatios.skills, { runs: r.skillsMs, plain: r.firstRequestMs }),
          { key: "startup.delegate_no_agents", label: "`hel --delegate task-only hi`, no agent files: spawn → first request", value: median(r.noAgentsMs), unit: "ms", note: `${r.noAgentsMs.length} runs` },
          { key: "startup.delegate_agents", label: `  the same with ${AGENT_FILES} files in .hel/agents/`, value: median(r.agentsMs), unit: "ms", note: `${r.agentsMs.length} runs, interleaved` },
          pairRow("startup.agents_ratio", `  ratio ${AGENT_FILES} agents / none`, r.pairRatios.agents, r.pairCpuRatios.agents, { runs: r.agentsMs, plain: r.noAgentsMs }),
          { key: "startup.agents_and_skills", label: `  the same with ${AGENT_FILES} agents and ${SKILL_COUNT} skills`, value: median(r.bothMs), unit: "ms", note: `${r.bothMs.length} runs, interleaved` },
          pairRow("startup.agents_and_skills_ratio", `  ratio ${AGENT_FILES} agents and ${SKILL_COUNT} skills / none`, r.pairRatios.both, r.pairCpuRatios.both, { runs: r.bothMs, plain: r.noAgentsMs }),
          {
            key: "startup.agents_and_skills_floor",
            label: `  the least such a start pays: a fresh node that only lists those folders and lstats the ${AGENT_FILES + SKILL_COUNT} files`,
            value: median(r.statFloorMs),
            unit: "ms",
            note: `${r.statFloorMs.length} runs, timed inside it; a plain start with it added: ${fmt(floorRatio, 3)}×, where the pairs above gave hel ${fmt(median(r.pairRatios.both), 3)}×`,
            extra: { floor_ratio: floorRatio },
          },
          {
            key: "startup.agents_and_skills_cold_ratio",
            label: "  the same, the first start after every file changed (.hel/cache/ removed)",
            value: median(r.bothColdMs) / median(r.noAgentsMs),
            unit: "x",
            note: `one after another, medians ${ratioNote(median(r.bothColdMs), median(r.noAgentsMs))}; later starts read only the files that changed`,
            extra: { own_share_median_ms: median(r.bothColdMs) - median(r.noAgentsMs) },
          },
          {
            key: "startup.link.first_request",
            label: `over a link of ${LINK_RTT_MS} ms round trip: spawn → first request`,
            value: median(r.linkPlainMs),
            unit: "ms",
            note: `${r.linkPlainMs.length} starts, both sides of the noise pairs below; the same pairs on localhost ${fmt(median(r.pairPlainMs), 0)} ms, so the link added ${fmt(linkAdded, 0)} ms, where a connection opened only once the request is ready adds ${fmt(2.5 * LINK_RTT_MS, 0)} (2 round trips of handshakes, half of one for the request)`,
            extra: { localhost_pair_ms: median(r.pairPlainMs), link_added_ms: linkAdded },
          },
          pairRow("startup.link.noise_ratio", "  the same start against itself, over the link", r.linkPairRatios.noise, r.linkPairCpuRatios.noise, null, false),
          pairRow("startup.link.agents_and_skills_ratio", `  ratio ${AGENT_FILES} agents and ${SKILL_COUNT} skills / none, over the link`, r.linkPairRatios.both, r.linkPairCpuRatios.both, null),
        ],
        footnotes: [
          "Arrival = a pass-through HTTP proxy in front of the simulator sees the request's headers; spawn = just before child_process.spawn.",
          "Ratios: each pair's two starts spawned together, one per core, each through its own proxy, so both meet the machine as it is at that moment (this VM's speed changes from second to second); the first to arrive is answered only once the other has arrived too, so its answer takes no core from the other's start.",
          "CPU and wait = /proc/<pid>/task/*/schedstat read when the request arrives (ns); `node -e 0` CPU = time(1) %U+%S (10 ms steps).",
          `Link = a TCP relay before each side's proxy (bench/link.ts): a new connection's bytes leave only ${2 * LINK_RTT_MS} ms (2 round trips: the TCP and TLS 1.3 handshakes) after it opens, and every byte takes ${LINK_RTT_MS / 2} ms each way.`,
        ],
      };
    });
  }

  await attempt("mcp", "2b. Start to first request with an MCP server", async (): Promise<Section | Section[]> => {
    const r = await measureMcpStartup({ runs: 7, log });
    const none = median(r.noneMs);
    const everything = median(r.everythingMs);
    return {
      title: "2b. Start to first request with an MCP server (built CLI `hel -C <tmp> [--mcp-config <server-everything>] hi`)",
      rows: [
        { key: "mcp.first_request.none", label: "no server: spawn → first request", value: none, unit: "ms", note: `${r.noneMs.length} runs` },
        { key: "mcp.first_request.everything", label: "server-everything over stdio: spawn → first request", value: everything, unit: "ms", note: `${r.everythingMs.length} runs, interleaved` },
        { key: "mcp.first_request.ratio", label: "ratio with server / without", value: everything / none, unit: "x", note: `the server's share: ${fmt(everything - none, 0)} ms` },
      ],
      footnotes: ["With a server, hel starts it and lists its tools before its first request; without, nothing of the MCP client is loaded."],
    };
  });

  await attempt("demo", "3. Whole run: the demo edit task", async (): Promise<Section | Section[]> => {
    const r = await measureDemo({ runs: 5, log });
    return {
      title: `3. Whole run: fixtures/demo edit task, policy "demo" (${r.requests} requests)`,
      rows: [
        { key: "demo.wall", label: "wall time, spawn → exit", value: median(r.wallMs), unit: "ms", note: `${r.wallMs.length} runs; CPU ${fmt(median(r.cpuMs), 0)} ms`, extra: { cpu_ms: median(r.cpuMs) } },
        { key: "demo.peak_rss", label: "peak RSS of the hel process", value: median(r.peakRssMb), unit: "MB", target: { kind: "under", limit: 100, unit: "MB" }, note: `max ${fmt(Math.max(...r.peakRssMb))} MB` },
      ],
      footnotes: [
        rssMethod() === "gnu-time"
          ? "Peak RSS: GNU /usr/bin/time -f %M (kernel ru_maxrss of the child); the wall time includes time(1)'s own exec (~1 ms)."
          : "Peak RSS: /proc/<pid>/status VmHWM polled every 1 ms (GNU time not found); may miss growth in the last millisecond.",
      ],
    };
  });

  if (only.has("version")) {
    await attempt("version", "4. hel --version", async (): Promise<Section | Section[]> => {
      if (versionMs.length === 0) throw new Error("the startup measurement did not run");
      const hel = median(versionMs);
      const bare = median(nodeBare);
      const helCpu = median(versionCpu);
      const bareCpu = median(nodeBareCpu);
      return {
        title: "4. `hel --version` against bare `node -e 0` (spawn → exit, interleaved)",
        rows: [
          { key: "version.hel", label: "hel --version", value: hel, unit: "ms", note: `${versionMs.length} runs; CPU ${fmt(helCpu, 0)} ms`, extra: { cpu_ms: helCpu } },
          { key: "version.node_bare", label: "node -e 0", value: bare, unit: "ms", note: `${nodeBare.length} runs; CPU ${fmt(bareCpu, 0)} ms`, extra: { cpu_ms: bareCpu } },
          { key: "version.ratio", label: "ratio hel --version / node -e 0", value: hel / bare, unit: "x", note: `hel's own ${fmt(hel - bare)} ms; CPU ratio ${fmt(helCpu / bareCpu, 2)}×`, extra: { cpu_ratio: helCpu / bareCpu } },
        ],
        footnotes: ["Both run through time(1) (for the CPU figure, %U+%S in 10 ms steps), so both pay its exec alike."],
      };
    });
  }

  await attempt("read", "5. read_file first page", async (): Promise<Section | Section[]> => {
    const [small, big] = await measureReadFile({ runs: 5, log });
    const rss = (s: typeof small) => median(s!.peakRssMb);
    const own = (s: typeof small) => median(s!.readPeakMb);
    return {
      title: "5. read_file's first page: 1 GB file vs 1 MB file (fresh child process each)",
      rows: [
        { key: "read.ms.1MB", label: "time, 1 MB file", value: median(small!.ms), unit: "ms", note: `${small!.ms.length} runs, page ${mb(small!.pageBytes)}` },
        { key: "read.ms.1GB", label: "time, 1 GB file", value: median(big!.ms), unit: "ms", note: `${big!.ms.length} runs, page ${mb(big!.pageBytes)}` },
        { key: "read.rss.1MB", label: "peak RSS of the child, 1 MB file", value: rss(small), unit: "MB", note: `the read itself: +${fmt(own(small), 2)} MB` },
        { key: "read.rss.1GB", label: "peak RSS of the child, 1 GB file", value: rss(big), unit: "MB", note: `the read itself: +${fmt(own(big), 2)} MB` },
        { key: "read.rss.ratio", label: "peak RSS ratio 1 GB / 1 MB", value: rss(big) / rss(small), unit: "x", target: { kind: "about", value: 1, tolerance: 0.05 } },
      ],
      footnotes: [
        "Time = executeToolCall(read_file) alone, first call in the process (files in the page cache). Text files of ~80-byte lines.",
        "The read itself = VmHWM after the call − VmRSS before it, with the peak reset (/proc/self/clear_refs) just before.",
      ],
    };
  });

  await attempt("session", "6. Session save and load", async (): Promise<Section | Section[]> => {
    const sizes = await measureSessions({ log });
    const rows: Row[] = [];
    const breakdown: string[] = [];
    for (const s of sizes) {
      const at10 = s.targetBytes === 10_000_000;
      const fileMb = s.fileBytes / 1e6;
      const save = median(s.saveMs);
      const load = median(s.loadMs);
      const key = s.label.replace(" ", "");
      rows.push({
        key: `session.save.${key}`,
        label: `save ${s.label} (${fmt(fileMb, 2)} MB, ${s.messages} msgs)`,
        value: save,
        unit: "ms",
        ...(at10 ? { target: { kind: "under", limit: 30, unit: "ms" } as const } : {}),
        note: `${fmt(save / fileMb, 2)} ms/MB · CPU ${fmt(median(s.saveCpuMs))} ms · peak +${fmt(median(s.savePeakMb))} MB · ${s.saveMs.length} reps`,
        extra: { ms_per_mb: save / fileMb, cpu_ms: median(s.saveCpuMs), peak_rss_delta_mb: median(s.savePeakMb), file_bytes: s.fileBytes, ...pick(s.steps, "save_") },
      });
      rows.push({
        key: `session.load.${key}`,
        label: `load ${s.label}`,
        value: load,
        unit: "ms",
        ...(at10 ? { target: { kind: "under", limit: 60, unit: "ms" } as const } : {}),
        note: `${fmt(load / fileMb, 2)} ms/MB · CPU ${fmt(median(s.loadCpuMs))} ms · peak +${fmt(median(s.loadPeakMb))} MB · ${s.loadMs.length} reps`,
        extra: {
          ms_per_mb: load / fileMb,
          cpu_ms: median(s.loadCpuMs),
          peak_rss_delta_mb: median(s.loadPeakMb),
          file_bytes: s.fileBytes,
          child_peak_rss_mb: s.loadPeakRssMb ?? Number.NaN,
          ...pick(s.steps, "load_"),
        },
      });
      const resave = median(s.resumeSaveMs);
      rows.push({
        key: `session.resume_save.${key}`,
        label: `first save after a load, ${s.label}`,
        value: resave,
        unit: "ms",
        note: `${fmt(resave / fileMb, 2)} ms/MB · ${s.resumeSaveMs.length} reps`,
        extra: { ms_per_mb: resave / fileMb },
      });
      const st = s.steps;
      if (s.targetBytes >= 10_000_000) {
        breakdown.push(
          `${s.label} steps — save: validate ${fmt(st["save_validate_ms"]!)} + pairing ${fmt(st["save_pairing_ms"]!)} + encode ${fmt(st["save_encode_ms"]!)} + write/fsync ${fmt(st["save_write_fsync_ms"]!)} ms;` +
            ` load: read ${fmt(st["load_read_ms"]!)} + decode and JSON.parse by line ${fmt(st["load_split_parse_ms"]!)} + validate ${fmt(st["load_validate_ms"]!)} ms`,
        );
      }
    }
    return {
      title: "6. Session save and load (real saveSnapshot/loadSnapshot; per size, one child process saves, a new one loads)",
      rows,
      footnotes: [
        "Save = validate + encode + temp file, fsync, rename, dir fsync; load = read + parse + validate, in a process holding nothing else, as a resume.",
        "An unmeasured save and load come first in each process. First save after a load = the loaded snapshot plus one exchange, saved in",
        "the loading process, as a resume's first answer is: the history goes to disk from the bytes the load read.",
        "CPU = process.cpuUsage() over the operation; peak + = VmHWM during it − VmRSS before it (peak reset via /proc/self/clear_refs, gc() first):",
        "memory a previous operation left resident is reused, so this is the steady-state rise, not what was allocated.",
        "Steps below: each timed alone, repeatedly, on memory already touched, so they sum to less than the totals above; the rest is",
        "first-touch page faults on new heap and buffers (see the fresh-memory line at the top) and garbage collection.",
        ...breakdown,
      ],
    };
  });

  await attempt("context", "7. Context economy: fold and compaction", async (): Promise<Section | Section[]> => {
    const e = await measureEpisode();
    const v = await measureViewChanges();
    const usd = (x: number): string => `$${x.toFixed(4)}`;
    const armRow = (name: "folded" | "inline", label: string): Row => ({
      key: `context.next10.${name}`,
      label: `next 10 requests, ${label}: prompt tokens`,
      value: e[name].promptTokens,
      unit: "x",
      note: `${fmt(e[name].hitShare * 100)}% from the cache · ${usd(e[name].costUsd)}`,
      extra: { hit_share: e[name].hitShare, cost_usd: e[name].costUsd },
    });
    return {
      title: "7. Context economy: the seed article's build episode, folded or left in place; fold and compaction of a 10 MB session",
      rows: [
        { key: "context.episode.tokens", label: "build episode (reads and results)", value: e.episodeTokens, unit: "x", note: "tokens" },
        { key: "context.note.tokens", label: "its fold note", value: e.noteTokens, unit: "x", note: `tokens · ${fmt(e.episodeTokens / e.noteTokens, 0)}× smaller` },
        armRow("folded", "after the fold"),
        armRow("inline", "episode left in place"),
        { key: "context.fold_10mb", label: `fold in a 10 MB session (${v.messages} msgs): new view + archive + snapshot saved`, value: median(v.foldMs), unit: "ms", target: { kind: "under", limit: 100, unit: "ms" }, note: `${v.foldMs.length} reps` },
        { key: "context.compact_10mb", label: "compaction of the same session: new view + archive + snapshot saved", value: median(v.compactMs), unit: "ms", target: { kind: "under", limit: 100, unit: "ms" }, note: `${v.compactMs.length} reps, summary request not included` },
      ],
      footnotes: [
        "Episode: three build logs read with read_file by the simulator's episode policy, then folded (or not), then ten more instructions answered",
        "at once; tokens counted by the simulator's tokenizer; cost at deepseek-flash off-peak prices ($0.003 hit, $0.15 miss, $0.60 output per 1M).",
      ],
    };
  });

  await attempt("build-loop", "7b. The build loop: inline, auto-folded, compacted", async (): Promise<Section | Section[]> => {
    const arms = Object.keys(BUILD_LOOP_ARMS) as BuildLoopArm[];
    const results = {} as Record<BuildLoopArm, BuildLoopResult>;
    for (const arm of arms) results[arm] = await measureBuildLoop(arm);
    const inline = results.inline;
    const rows: Row[] = arms.map((arm) => {
      const r = results[arm];
      return {
        key: `build_loop.${arm}.prompt_tokens`,
        label: `${arm}: prompt tokens over the task (uncached · dollars · largest request · requests)`,
        value: r.promptTokens,
        unit: "tokens",
        note: `${fmt(r.uncachedTokens, 0)} uncached · $${r.costUsd.toFixed(6)} · largest ${fmt(r.largestPrompt, 0)} · ${r.requests} requests`,
        extra: { uncached_tokens: r.uncachedTokens, cost_usd: r.costUsd, largest_prompt: r.largestPrompt, requests: r.requests, after_prompt_tokens: r.afterPromptTokens },
      };
    });
    for (const arm of ["auto-fold", "compacted"] as const) {
      const r = results[arm];
      rows.push({
        key: `build_loop.${arm}.after_ratio`,
        label: `${arm} / inline: prompt tokens of the 10 steps after the episode (dollars, uncached, extra requests)`,
        value: r.afterPromptTokens / inline.afterPromptTokens,
        unit: "x",
        ...(arm === "auto-fold" ? { target: { kind: "under" as const, limit: 0.5, unit: "x" as const } } : {}),
        note: `${fmt(r.afterPromptTokens, 0)} vs ${fmt(inline.afterPromptTokens, 0)} · dollars ${fmt(r.costUsd / inline.costUsd, 2)}× · uncached ${fmt(r.uncachedTokens / inline.uncachedTokens, 2)}× · ${r.requests - inline.requests >= 0 ? "+" : ""}${r.requests - inline.requests} requests`,
      });
    }
    rows.push({
      key: "build_loop.kept_log_tokens",
      label: "one failing build's log: tokens the view keeps of it (the whole log is in spill/)",
      value: inline.keptLogTokens,
      unit: "tokens",
      note: `of ${fmt(inline.logTokens, 0)} · ${fmt(inline.keptLogTokens / inline.logTokens, 2)}×`,
    });
    return {
      title: "7b. The build loop of the seed article (three failing builds with long logs, a passing one, ten steps): inline, auto-folded, compacted at 10,000",
      rows,
      footnotes: ["Simulator's build-loop policy and tokenizer; dollars at deepseek-flash off-peak prices ($0.003 hit, $0.15 miss, $0.60 output per 1M)."],
    };
  });

  await attempt("grep", "8. grep over large trees", async (): Promise<Section | Section[]> => {
    const trees = await measureGrep({ runs: 5, projectRoot: PROJECT_ROOT, log });
    const rows: Row[] = [];
    for (const t of trees) {
      const key = t.key;
      const call = median(t.helCallMs);
      const grep = median(t.grepWallMs);
      const what = `${t.label}, ${t.matches} matches`;
      const callCpu = median(t.helCallCpuMs);
      const grepCpu = median(t.grepCpuMs);
      rows.push({
        key: `grep.${key}.hel_call`,
        label: `${what}: hel grep, the call`,
        value: call,
        unit: "ms",
        note: `${t.helCallMs.length} runs; CPU ${fmt(callCpu, 0)} ms; whole process ${fmt(median(t.helWallMs), 0)} ms`,
        extra: { cpu_ms: callCpu, hel_wall_ms: median(t.helWallMs) },
      });
      rows.push({ key: `grep.${key}.grep`, label: `${what}: grep -rnI, spawn → exit`, value: grep, unit: "ms", note: `${t.grepWallMs.length} runs; CPU ${fmt(grepCpu, 0)} ms`, extra: { cpu_ms: grepCpu } });
      rows.push({
        key: `grep.${key}.ratio`,
        label: "  ratio hel's call / grep -rnI",
        value: call / grep,
        unit: "x",
        target: { kind: "under", limit: 2, unit: "x" },
        note: `CPU ${fmt(callCpu / grepCpu, 2)}×; whole hel process / grep ${fmt(median(t.helWallMs) / grep, 2)}×`,
        extra: { cpu_ratio: callCpu / grepCpu, wall_ratio: median(t.helWallMs) / grep },
      });
      rows.push({
        key: `grep.${key}.rss`,
        label: "  peak RSS: hel process (grep -rnI)",
        value: median(t.helPeakRssMb),
        unit: "MB",
        note: `grep ${fmt(median(t.grepPeakRssMb))} MB; the search itself +${fmt(median(t.helSearchPeakMb), 2)} MB`,
        extra: { grep_peak_rss_mb: median(t.grepPeakRssMb), search_peak_mb: median(t.helSearchPeakMb) },
      });
    }
    const [small, big] = trees;
    rows.push({
      key: "grep.rss.ratio",
      label: "peak RSS of hel, 50,000 / 5,000 files",
      value: median(big!.helPeakRssMb) / median(small!.helPeakRssMb),
      unit: "x",
      target: { kind: "about", value: 1, tolerance: 0.1 },
    });
    return {
      title: "7. grep over large trees: hel's grep tool (fresh child process each) vs GNU grep -rnI on the same files",
      rows,
      footnotes: [
        "Generated trees: ~2 KB files of 43 lines, 100 per directory; pattern /needle_[0-9]+/ matches in 1 file of 997, so both read every file.",
        "node_modules: hel's grep given path node_modules (so it walks it; .gitignore files inside packages still apply), grep -rnI on the same directory.",
        "The call = executeToolCall alone, the search thread already started and its modules loaded; whole process adds Node's start-up and loading hel's modules.",
        "CPU = process.cpuUsage() over the call for hel, time(1) %U+%S (10 ms steps) for grep: on a shared machine, the fairer comparison.",
        "The search itself = VmHWM after the call − VmRSS before it, with the peak reset (/proc/self/clear_refs) just before.",
      ],
    };
  });

  await attempt("commands", "9. run_command", async (): Promise<Section | Section[]> => {
    const o = await measureCommandOverhead({ runs: 30, log });
    const big = await measureBigOutput({ runs: 3, log });
    const bash = median(o.bashMs);
    const rows: Row[] = [
      { key: "commands.bash", label: "`bash -c true` spawned directly", value: bash, unit: "ms", note: `${o.bashMs.length} runs` },
      { key: "commands.full", label: "run_command `true`, --access full", value: median(o.fullMs), unit: "ms", note: `+${fmt(median(o.fullMs) - bash)} ms` },
      { key: "commands.full.ratio", label: "  ratio to `bash -c true`", value: median(o.fullMs) / bash, unit: "x" },
    ];
    if (o.sandboxedMs.length > 0) {
      const sandboxed = median(o.sandboxedMs);
      rows.push(
        { key: "commands.bwrap", label: "bubblewrap + `bash -c true` spawned directly (hel's bwrap arguments)", value: median(o.bwrapMs), unit: "ms", note: `+${fmt(median(o.bwrapMs) - bash)} ms` },
        { key: "commands.sandboxed", label: "run_command `true`, sandboxed (--access edit)", value: sandboxed, unit: "ms", note: `hel's own part: ${fmt(sandboxed - median(o.bwrapMs))} ms` },
        { key: "commands.sandboxed.added", label: "  added to `bash -c true`", value: sandboxed - bash, unit: "ms", target: { kind: "under", limit: 15, unit: "ms" } },
        { key: "commands.sandboxed.ratio", label: "  ratio to `bash -c true`", value: sandboxed / bash, unit: "x" },
      );
    }
    rows.push(
      {
        key: "commands.big.peak_rss",
        label: `peak RSS of hel, a command printing ${BIG_OUTPUT_BYTES / 1e6} MB${big.sandboxed ? " (sandboxed)" : ""}`,
        value: median(big.peakRssMb),
        unit: "MB",
        target: { kind: "under", limit: 100, unit: "MB" },
        note: `max ${fmt(Math.max(...big.peakRssMb))} MB; spill file ${mb(big.spillBytes)}`,
        extra: { spill_bytes: big.spillBytes },
      },
      { key: "commands.big.wall", label: "  whole run, spawn → exit", value: median(big.wallMs), unit: "ms", note: `${big.wallMs.length} runs` },
    );
    return {
      title: "8. run_command: overhead of `true`, and a command printing 100 MB",
      rows,
      footnotes: [
        "Overhead: in-process runCommandTool.run vs child_process spawns, interleaved, each timed from the call to its return / the close of the pipes.",
        "100 MB: the built CLI against the simulator, one run_command call, then an answer; the whole output streams to spill/.",
      ],
    };
  });

  await attempt("parallel", "10. Parallel subagents", async (): Promise<Section | Section[]> => {
    const r = await measureParallel({ runs: 5, log });
    const together = median(r.parallel.childrenMs);
    const apart = median(r.sequence.childrenMs);
    const shares = r.firstHitShares.map((s) => s * 100);
    return {
      title: `9. Parallel subagents: three \`full\` children, every answer ${ANSWER_DELAY_MS} ms late (built CLI, ${r.requestsPerRun} requests a run)`,
      rows: [
        { key: "parallel.children.together", label: "three children at once: first child request → parent's next request", value: together, unit: "ms", note: `${r.parallel.childrenMs.length} runs` },
        { key: "parallel.children.apart", label: "the same three one after another", value: apart, unit: "ms", note: `${r.sequence.childrenMs.length} runs` },
        { key: "parallel.children.ratio", label: "  ratio at once / one after another", value: together / apart, unit: "x", target: { kind: "under", limit: 0.45, unit: "x" } },
        {
          key: "parallel.wall",
          label: "whole run at once, spawn → exit",
          value: median(r.parallel.wallMs),
          unit: "ms",
          note: `one after another ${fmt(median(r.sequence.wallMs), 0)} ms`,
          extra: { sequence_wall_ms: median(r.sequence.wallMs) },
        },
        {
          key: "parallel.peak_rss",
          label: "peak RSS of hel, three children at once",
          value: median(r.parallel.peakRssMb),
          unit: "MB",
          note: `one after another ${fmt(median(r.sequence.peakRssMb))} MB`,
          extra: { sequence_peak_rss_mb: median(r.sequence.peakRssMb) },
        },
        {
          key: "parallel.first_hit_share",
          label: "cache-hit share of each child's first request (at once)",
          value: median(shares),
          unit: "%",
          target: { kind: "atLeast", limit: 90, unit: "%" },
          note: `${shares.length} requests; lowest ${fmt(Math.min(...shares))} %`,
          extra: { min_percent: Math.min(...shares) },
        },
      ],
      footnotes: [
        "The parent reads notes.md (60 lines), then sends one message with three delegate_task calls and two read_file calls: at once = the",
        "three delegations side by side; one after another = a read_file between each two, so each runs alone. Each child reads one file, then answers.",
        "Times are arrivals at the simulator (in the bench process); the two shapes alternate, one unmeasured run of each first.",
      ],
    };
  });

  await attempt("checkpoints", "11. File checkpoints", async (): Promise<Section> => {
    const ten = await measureCheckpoints({ files: 10_000, rounds: 7, log });
    const fifty = await measureCheckpoints({ files: 50_000, rounds: 0, log });
    const next = median(ten.nextMs);
    const gitNext = median(ten.gitNextMs);
    return {
      title: "11. File checkpoints (.hel/checkpoints) beside `git add -A && git write-tree` on a scratch copy of the same tree",
      rows: [
        { key: "checkpoints.10k.next", label: "10,000 files, a turn that changed 3: checkpoint", value: next, unit: "ms", target: { kind: "under", limit: 150, unit: "ms" }, note: `${ten.nextMs.length} turns` },
        { key: "checkpoints.10k.next_ratio", label: "  ratio to git add -A && git write-tree", value: next / gitNext, unit: "x", note: `git ${fmt(gitNext, 0)} ms` },
        { key: "checkpoints.10k.first", label: "10,000 files: the first checkpoint", value: ten.firstMs, unit: "ms", note: `git ${fmt(ten.gitFirstMs, 0)} ms` },
        { key: "checkpoints.50k.first", label: "50,000 files: the first checkpoint", value: fifty.firstMs, unit: "ms", note: `git ${fmt(fifty.gitFirstMs, 0)} ms` },
        { key: "checkpoints.50k.first_ratio", label: "  ratio to git add -A && git write-tree", value: fifty.firstMs / fifty.gitFirstMs, unit: "x" },
      ],
      footnotes: ["Files of about 1 KB in folders of 10; each turn edits the same three files in both trees."],
    };
  });

  await attempt("build", "12. Builds with nothing changed", async (): Promise<Section> => {
    const t = await measureBuilds({ runs: 5, log });
    const script = { kind: "under", limit: 2000, unit: "ms" } as const;
    return {
      title: "12. Builds with nothing changed since the last one (spawn → exit)",
      rows: [
        { key: "build.noop", label: "node scripts/build.mjs --dev", value: median(t.buildMs), unit: "ms", note: `${t.buildMs.length} runs` },
        { key: "build.sim_help", label: "npm run sim -- --help (the build, then the script)", value: median(t.simHelpMs), unit: "ms", target: script, note: `${t.simHelpMs.length} runs` },
        { key: "build.cost_model", label: "npm run evals -- cost-model", value: median(t.costModelMs), unit: "ms", target: script, note: `${t.costModelMs.length} runs` },
      ],
      footnotes: ["Every npm script builds first; before the build was incremental, each of these rebuilt everything from clean."],
    };
  });

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
    process.stderr.write(`bench: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
