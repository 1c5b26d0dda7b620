// The startup and version sections. One set of child runs serves both, so the `node -e 0` baseline is
// shared: the startup section measures whenever either was chosen and leaves the result to the version
// section in the context.
import { AGENT_FILES, LINK_RTT_MS, measureStartup, RESUME_BYTES, SKILL_COUNT } from "../startup.js";
import { fmt, mb, median, percentile, type Row, type Section } from "../stats.js";
import type { BenchSection } from "./section.js";

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

export const startupSection: BenchSection = {
  name: "startup",
  title: "2. Start to first request",
  serves: ["version"],
  async run(ctx) {
    const { only, log } = ctx;
    const r = await measureStartup({
      runs: only.has("startup") ? 15 : 0,
      resumeRuns: only.has("startup") ? 7 : 0,
      agentRuns: only.has("startup") ? 12 : 0,
      skillRuns: only.has("startup") ? 12 : 0,
      pairRuns: only.has("startup") ? 30 : 0,
      versionRuns: only.has("version") ? 15 : 0,
      log,
    });
    ctx.startup = r;
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
  },
};

export const versionSection: BenchSection = {
  name: "version",
  title: "4. hel --version",
  async run({ startup }): Promise<Section> {
    if (!startup || startup.versionMs.length === 0) throw new Error("the startup measurement did not run");
    const { versionMs, versionCpuMs: versionCpu, nodeBareMs: nodeBare, nodeBareCpuMs: nodeBareCpu } = startup;
    const hel = median(versionMs);
    const bare = median(nodeBare);
    const helCpu = median(versionCpu);
    const bareCpu = median(nodeBareCpu);
    return {
      title: "4. `hel --version` against bare `node -e 0` (spawn → exit, interleaved)",
      rows: [
        { key: "version.hel", label: "hel --version", value: hel, unit: "ms", note: `${versionMs.length} runs; CPU ${fmt(helCpu, 0)} ms`, extra: { cpu_ms: helCpu } },
        { key: "version.node_bare", label: "node -e 0", value: bare, unit: "ms", note: `${nodeBare.length} runs; CPU ${fmt(bareCpu, 0)} ms`, extra: { cpu_ms: bareCpu } },
        {
          key: "version.ratio",
          label: "ratio hel --version / node -e 0",
          value: hel / bare,
          unit: "x",
          note: `hel's own ${fmt(hel - bare)} ms; CPU ratio ${fmt(helCpu / bareCpu, 2)}×`,
          extra: { cpu_ratio: helCpu / bareCpu },
        },
      ],
      footnotes: ["Both run through time(1) (for the CPU figure, %U+%S in 10 ms steps), so both pay its exec alike."],
    };
  },
};
