// The built CLI as a user meets it, one child process per run: spawn → first request at the
// simulator (of a plain project, of a resumed session, of a project of SKILL_COUNT skills, and with
// --delegate of a project with AGENT_FILES named agents, and of one with both, against one with none;
// the last also as the first start after every file changed, and beside it a fresh Node that only lists
// and lstats its files, timed inside it: stat-probe.ts), two of its same-moment pairs again over a
// modelled network link (link.ts), `hel --version` against bare `node -e 0`, and
// the whole four-step demo task (wall time and peak RSS). Contract: every other figure is one child process from just before spawn(); the
// simulator runs in the bench process, which does nothing else while a child runs, and the arrival
// time is taken by a pass-through HTTP proxy in front of it at the moment the request's headers
// arrive (the simulator itself is not touched).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HEL_BIN, PROJECT_ROOT } from "../scripts/hel-bin.js";
import { saveSnapshot } from "../src/session/snapshot-file.js";
import { sessionOfBytes } from "./history.js";
import { linkProxy } from "./link.js";
import { startSimulator } from "../sim/index.js";
import { runChild, schedTimes } from "./procs.js";

const ROOT = PROJECT_ROOT;
const CLI = HEL_BIN;
/** The floor of the agents-and-skills row: a fresh Node that only lists and lstats those files (stat-probe.ts). */
const STAT_PROBE = fileURLToPath(new URL("./stat-probe.js", import.meta.url));
export const DEMO_INSTRUCTION = "The greeting in src/greet.js has a typo. Fix it, then check the file.";

interface ArrivalProxy {
  url: string;
  /** performance.now() of each request's arrival, in order. */
  arrivals: number[];
  /** Runs right after an arrival is stamped, before the request is forwarded. */
  onArrival: (() => void) | null;
  /** When set, a request is forwarded only once it settles. */
  hold: Promise<void> | null;
  close(): Promise<void>;
}

export async function arrivalProxy(target: string): Promise<ArrivalProxy> {
  const upstream = new URL(target);
  const proxy: ArrivalProxy = { url: "", arrivals: [], onArrival: null, hold: null, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    proxy.arrivals.push(performance.now());
    proxy.onArrival?.();
    await proxy.hold;
    const up = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

export interface StartupResult {
  firstRequestMs: number[];
  /** CPU time of the hel process (all threads) when its first request arrived. */
  firstRequestCpuMs: number[];
  /** How long hel's main thread had waited for a CPU by then: the machine's load, not hel's work. */
  firstRequestWaitMs: number[];
  nodeBareMs: number[];
  nodeBareCpuMs: number[];
  versionMs: number[];
  versionCpuMs: number[];
  /** spawn → first request of `hel --resume <id> hi` on a session of RESUME_BYTES, interleaved with the runs above. */
  resumeMs: number[];
  /** spawn → first request of `hel --delegate task-only hi` in a project without agent files, and in one with AGENT_FILES, interleaved. */
  noAgentsMs: number[];
  agentsMs: number[];
  /** spawn → first request of `hel hi` in a project of SKILL_COUNT skills, interleaved with the plain starts. */
  skillsMs: number[];
  /** spawn → first request of `hel --delegate task-only hi` in a project of AGENT_FILES agents and SKILL_COUNT skills, interleaved with noAgentsMs. */
  bothMs: number[];
  /** The same with .hel/cache/ removed first: the first start after every file changed. */
  bothColdMs: number[];
  /** A fresh Node's listing and lstat of the agents-and-skills project's files alone (stat-probe.ts), timed inside it. */
  statFloorMs: number[];
  /**
   * Same-moment pairs: each pair's two starts spawned together, one per core, each through its own
   * proxy, so that both meet the machine as it is at that moment; b's time over a's, per pair.
   */
  pairRatios: Record<PairName, number[]>;
  /** The same pairs' CPU time of hel (all threads) by its first request, b's over a's: what the machine's waits leave out. */
  pairCpuRatios: Record<PairName, number[]>;
  /** The noise and agents-and-skills pairs again, each side through its own link of LINK_RTT_MS (link.ts) in front of its proxy. */
  linkPairRatios: Record<LinkPairName, number[]>;
  linkPairCpuRatios: Record<LinkPairName, number[]>;
  /** Each link noise pair's two spawn → arrival times, both sides. */
  linkPlainMs: number[];
  /** The same of the noise pairs on localhost: what the link's times are to be set beside, both being two starts at once. */
  pairPlainMs: number[];
}

/** A promise that settles once each of `sides` has called its own `side()` (more calls of one count once). */
interface Gate {
  open: Promise<void>;
  side(): () => void;
}

function gate(sides: number): Gate {
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  let waiting = sides;
  return {
    open,
    side() {
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (--waiting === 0) release();
      };
    },
  };
}

/** The pairs: a plain start against itself (the machine's own noise), and the rows' starts against theirs. */
export const PAIRS = ["noise", "skills", "agents", "both"] as const;
export type PairName = (typeof PAIRS)[number];

/** The pairs run again over the link: what the machine alone makes of a ratio there, and the row with the most files to read. */
export const LINK_PAIRS = ["noise", "both"] as const satisfies readonly PairName[];
export type LinkPairName = (typeof LINK_PAIRS)[number];

/** The link's round trip, ms: a user near the API's servers; a farther one's connection takes longer, and hides more of a start. */
export const LINK_RTT_MS = 30;

/** How many skills the skills row's project holds. */
export const SKILL_COUNT = 200;

/** A project (`project`, or a new one) whose .hel/skills/ holds SKILL_COUNT skills, each a short SKILL.md as people write them. */
async function projectOfSkills(project?: string): Promise<string> {
  project ??= await mkdtemp(join(tmpdir(), "hel-bench-skills-"));
  for (let i = 0; i < SKILL_COUNT; i++) {
    const name = `skill-${String(i).padStart(3, "0")}`;
    await mkdir(join(project, ".hel", "skills", name), { recursive: true });
    const text = `---\nname: ${name}\ndescription: How this project does task ${i}: the steps, the checks, and what to leave alone.\n---\n# ${name}\n\n1. Read the code.\n2. Change it.\n3. Run the tests.\n`;
    await writeFile(join(project, ".hel", "skills", name, "SKILL.md"), text);
  }
  return project;
}

/** How many agent files the agents rows' project holds. */
export const AGENT_FILES = 200;

/** A project with `count` agent files in .hel/agents/, each a description and a paragraph of instructions. */
async function agentsProject(count: number): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), "hel-bench-agents-"));
  await writeFile(join(project, "README.md"), "# a project\n");
  const dir = join(project, ".hel", "agents");
  await mkdir(dir, { recursive: true });
  const body = "Read the code the task names before you answer. Report each finding with its file and line, and nothing else.\n".repeat(4);
  for (let i = 0; i < count; i++) {
    const tools = i % 2 === 0 ? "tools: [read_file, grep, find_files]\n" : "";
    await writeFile(join(dir, `agent-${String(i).padStart(3, "0")}.md`), `---\ndescription: Reviews module ${i} for the error handling it lacks\nmode: task-only\n${tools}max-steps: 12\n---\n${body}`);
  }
  return project;
}

/** The size of the session the resume rows load. */
export const RESUME_BYTES = 10e6;

/** A saved session of about `bytes` in `project`, as hel itself would have written it; returns its id. */
async function savedSession(project: string, bytes: number): Promise<string> {
  const id = "bench0000-0000-4000-8000-000000000000";
  await saveSnapshot(project, sessionOfBytes(project, bytes, id, []));
  return id;
}

export async function measureStartup(options: { runs: number; resumeRuns: number; agentRuns: number; skillRuns: number; pairRuns: number; versionRuns: number; log: (line: string) => void }): Promise<StartupResult> {
  // A window that takes the resumed session whole: the resume row times hel, not the model's limit.
  const sim = await startSimulator({ policy: "echo", contextWindow: 64 * 1024 * 1024 });
  const proxy = await arrivalProxy(sim.url);
  const project = await mkdtemp(join(tmpdir(), "hel-bench-start-"));
  await writeFile(join(project, "README.md"), "# a project\n");
  // A code cache of the bench's own, so which run makes it is the bench's choice (below).
  const cacheHome = await mkdtemp(join(tmpdir(), "hel-bench-cache-"));
  const env = { ...process.env, DEEPSEEK_API_KEY: "x", HEL_BASE_URL: proxy.url, XDG_CACHE_HOME: cacheHome };
  const result: StartupResult = {
    firstRequestMs: [],
    firstRequestCpuMs: [],
    firstRequestWaitMs: [],
    nodeBareMs: [],
    nodeBareCpuMs: [],
    versionMs: [],
    versionCpuMs: [],
    resumeMs: [],
    noAgentsMs: [],
    agentsMs: [],
    skillsMs: [],
    bothMs: [],
    bothColdMs: [],
    statFloorMs: [],
    pairRatios: { noise: [], skills: [], agents: [], both: [] },
    pairCpuRatios: { noise: [], skills: [], agents: [], both: [] },
    linkPairRatios: { noise: [], both: [] },
    linkPairCpuRatios: { noise: [], both: [] },
    linkPlainMs: [],
    pairPlainMs: [],
  };
  const resumeProject = options.resumeRuns > 0 ? await mkdtemp(join(tmpdir(), "hel-bench-resume-")) : null;
  const resumeId = resumeProject ? await savedSession(resumeProject, RESUME_BYTES) : null;
  const [noAgents, withAgents, both] = options.agentRuns > 0 ? await Promise.all([agentsProject(0), agentsProject(AGENT_FILES), agentsProject(AGENT_FILES)]) : [null, null, null];
  if (both) await projectOfSkills(both);
  const skillsProject = options.skillRuns > 0 ? await projectOfSkills() : null;
  // A start reads again every file changed in the last two seconds (src/fs/file-memo.ts): the rows
  // are of a project whose files were written earlier, as a user's are.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  /** One run of hel with `args`: spawn → its first request's arrival. */
  const firstRequestOf = async (args: string[]): Promise<number> => {
    let t0 = 0;
    const before = proxy.arrivals.length;
    const run = await runChild(process.execPath, [CLI, ...args], { env, onSpawn: (t) => (t0 = t) });
    const arrival = proxy.arrivals[before];
    if (run.code !== 0 || arrival === undefined) throw new Error(`hel ${args.join(" ")} failed (exit ${run.code}): ${run.stderr.trim()}`);
    return arrival - t0;
  };
  /** One resume of the big session. */
  const resumeOnce = () => firstRequestOf(["-C", resumeProject!, "--resume", resumeId!, "--tools", "none", "hi"]);
  const delegating = (project: string) => firstRequestOf(["-C", project, "--delegate", "task-only", "hi"]);
  try {
    // One unmeasured run of each, so every measured one finds the files in the page cache. The one
    // with agents and skills first: after a build, the first run makes the code cache (src/bin/
    // compile-cache.cts), which holds the functions that run compiled, and a later run on a path it
    // did not take compiles those functions anew each time; this way every row's path is in it.
    if (both) await delegating(both);
    await runChild(process.execPath, [CLI, "-C", project, "hi"], { env });
    await runChild(process.execPath, ["-e", "0"]);
    if (resumeProject) await resumeOnce();
    if (noAgents && withAgents && both) for (const dir of [noAgents, withAgents, both]) await delegating(dir);
    if (skillsProject) await firstRequestOf(["-C", skillsProject, "hi"]);
    /** One plain start, with its CPU and run-queue figures. */
    const plainStart = async (): Promise<void> => {
      let t0 = 0;
      let pid: number | undefined;
      let sched: ReturnType<typeof schedTimes> = null;
      proxy.onArrival = () => {
        if (pid !== undefined && sched === null) sched = schedTimes(pid);
      };
      const before = proxy.arrivals.length;
      const run = await runChild(process.execPath, [CLI, "-C", project, "hi"], {
        env,
        onSpawn: (t, p) => {
          t0 = t;
          pid = p;
        },
      });
      proxy.onArrival = null;
      const arrival = proxy.arrivals[before];
      if (run.code !== 0 || arrival === undefined) throw new Error(`hel "hi" failed (exit ${run.code}): ${run.stderr.trim()}`);
      result.firstRequestMs.push(arrival - t0);
      const at = sched as ReturnType<typeof schedTimes>;
      if (at) {
        result.firstRequestCpuMs.push(at.cpuMs);
        result.firstRequestWaitMs.push(at.mainWaitMs);
      }
    };
    if (noAgents && withAgents && both && skillsProject) {
      const second = await arrivalProxy(sim.url);
      const secondEnv = { ...env, HEL_BASE_URL: second.url };
      /**
       * spawn → first request of `args`, through `via`, and hel's CPU time by then. Its request waits
       * at the proxy until `pair` has both sides' (a side that ends without one counts as arrived), so
       * that what follows the first arrival (the simulator's answer, the rest of that run, its exit)
       * takes no core from the other side's start: else the slower side of a pair would pay for the
       * faster one's lead, and every difference would be measured larger than it is.
       */
      const timedVia = async (via: ArrivalProxy, viaEnv: NodeJS.ProcessEnv, args: string[], pair: Gate): Promise<{ ms: number; cpuMs: number }> => {
        let t0 = 0;
        let pid: number | undefined;
        let cpuMs = Number.NaN;
        const arrived = pair.side();
        via.hold = pair.open;
        via.onArrival = () => {
          if (pid !== undefined && Number.isNaN(cpuMs)) cpuMs = schedTimes(pid)?.cpuMs ?? Number.NaN;
          arrived();
        };
        const before = via.arrivals.length;
        const run = await runChild(process.execPath, [CLI, ...args], {
          env: viaEnv,
          onSpawn: (t, p) => {
            t0 = t;
            pid = p;
          },
        });
        arrived();
        via.onArrival = null;
        via.hold = null;
        const arrival = via.arrivals[before];
        if (run.code !== 0 || arrival === undefined) throw new Error(`hel ${args.join(" ")} failed (exit ${run.code}): ${run.stderr.trim()}`);
        return { ms: arrival - t0, cpuMs };
      };
      const plainArgs = ["-C", project, "hi"];
      const delegateArgs = (dir: string) => ["-C", dir, "--delegate", "task-only", "hi"];
      const sides: Record<PairName, [string[], string[]]> = {
        noise: [plainArgs, plainArgs],
        skills: [plainArgs, ["-C", skillsProject, "hi"]],
        agents: [delegateArgs(noAgents), delegateArgs(withAgents)],
        both: [delegateArgs(noAgents), delegateArgs(both)],
      };
      /**
       * `options.pairRuns` rounds of the pairs `names`, each side through each proxy in turn (so that
       * neither proxy's order of arrival favours one), with the sides' environments `envs`.
       */
      const runPairs = async <N extends PairName>(
        names: readonly N[],
        envs: [NodeJS.ProcessEnv, NodeJS.ProcessEnv],
        into: { ratios: Record<N, number[]>; cpuRatios: Record<N, number[]>; plainMs: number[] },
      ): Promise<void> => {
        for (let i = 0; i < options.pairRuns; i++) {
          for (const name of names) {
            const [a, b] = sides[name];
            const pair = gate(2);
            const [ta, tb] =
              i % 2 === 0
                ? await Promise.all([timedVia(proxy, envs[0], a, pair), timedVia(second, envs[1], b, pair)])
                : (await Promise.all([timedVia(proxy, envs[0], b, pair), timedVia(second, envs[1], a, pair)])).reverse();
            into.ratios[name].push(tb!.ms / ta!.ms);
            if (Number.isFinite(ta!.cpuMs) && Number.isFinite(tb!.cpuMs)) into.cpuRatios[name].push(tb!.cpuMs / ta!.cpuMs);
            if (name === "noise") into.plainMs.push(ta!.ms, tb!.ms);
          }
        }
      };
      try {
        await runPairs(PAIRS, [env, secondEnv], { ratios: result.pairRatios, cpuRatios: result.pairCpuRatios, plainMs: result.pairPlainMs });
        // The same pairs, each side's requests over a link of its own before its proxy, which still
        // stamps their arrival and holds them as above.
        const link = await linkProxy(proxy.url, LINK_RTT_MS);
        const secondLink = await linkProxy(second.url, LINK_RTT_MS);
        try {
          await runPairs(
            LINK_PAIRS,
            [
              { ...env, HEL_BASE_URL: link.url },
              { ...env, HEL_BASE_URL: secondLink.url },
            ],
            { ratios: result.linkPairRatios, cpuRatios: result.linkPairCpuRatios, plainMs: result.linkPlainMs },
          );
        } finally {
          await link.close();
          await secondLink.close();
        }
      } finally {
        await second.close();
      }
    }
    for (let i = 0; i < Math.max(options.runs, options.resumeRuns, options.agentRuns, options.skillRuns); i++) {
      // Interleaved, so all see the machine alike, and each round in another order, so that no row
      // always follows the same one (the 10 MB resume, a start that writes its memo).
      const round: (() => Promise<void>)[] = [];
      if (i < options.resumeRuns) round.push(async () => void result.resumeMs.push(await resumeOnce()));
      if (i < options.agentRuns && noAgents && withAgents && both) {
        round.push(async () => void result.noAgentsMs.push(await delegating(noAgents)));
        round.push(async () => void result.agentsMs.push(await delegating(withAgents)));
        round.push(async () => void result.bothMs.push(await delegating(both)));
        round.push(async () => {
          await rm(join(both, ".hel", "cache"), { recursive: true, force: true });
          // It keeps them again for the next warm start.
          result.bothColdMs.push(await delegating(both));
        });
        round.push(async () => {
          const probe = await runChild(process.execPath, [STAT_PROBE, both]);
          if (probe.code !== 0) throw new Error(`the stat probe failed (exit ${probe.code}): ${probe.stderr.trim()}`);
          const { ms, files } = JSON.parse(probe.stdout) as { ms: number; files: number };
          if (files !== AGENT_FILES + SKILL_COUNT) throw new Error(`the stat probe found ${files} files, not ${AGENT_FILES + SKILL_COUNT}`);
          result.statFloorMs.push(ms);
        });
      }
      if (i < options.skillRuns && skillsProject) round.push(async () => void result.skillsMs.push(await firstRequestOf(["-C", skillsProject, "hi"])));
      if (i < options.runs) round.push(plainStart);
      for (let k = 0; k < round.length; k++) await round[(k + i) % round.length]!();
    }
    // Interleaved, so drift in the machine's load hits both sides alike.
    for (let i = 0; i < options.versionRuns; i++) {
      // Both through time(1), so both pay its exec alike and both get a CPU figure.
      const version = await runChild(process.execPath, [CLI, "--version"], { env, resources: true });
      if (version.code !== 0) throw new Error(`hel --version failed (exit ${version.code}): ${version.stderr.trim()}`);
      result.versionMs.push(version.wallMs);
      if (version.cpuMs !== null) result.versionCpuMs.push(version.cpuMs);
      const bare = await runChild(process.execPath, ["-e", "0"], { resources: true });
      result.nodeBareMs.push(bare.wallMs);
      if (bare.cpuMs !== null) result.nodeBareCpuMs.push(bare.cpuMs);
    }
    options.log(`startup: ${options.runs} first requests, ${options.versionRuns} × (--version, node -e 0)`);
  } finally {
    await proxy.close();
    await sim.close();
    await rm(project, { recursive: true, force: true });
    await rm(cacheHome, { recursive: true, force: true });
    if (resumeProject) await rm(resumeProject, { recursive: true, force: true });
    for (const dir of [noAgents, withAgents, both, skillsProject]) if (dir) await rm(dir, { recursive: true, force: true });
  }
  return result;
}

export interface DemoResult {
  wallMs: number[];
  cpuMs: number[];
  peakRssMb: number[];
  requests: number;
}

/** The demo task, each run on a fresh copy of fixtures/demo; a run that does not fix the typo is an error. */
export async function measureDemo(options: { runs: number; log: (line: string) => void }): Promise<DemoResult> {
  const sim = await startSimulator({ policy: "demo" });
  const env = { ...process.env, DEEPSEEK_API_KEY: "x", HEL_BASE_URL: sim.url };
  const result: DemoResult = { wallMs: [], cpuMs: [], peakRssMb: [], requests: 0 };
  try {
    for (let i = 0; i <= options.runs; i++) {
      const project = await mkdtemp(join(tmpdir(), "hel-bench-demo-"));
      try {
        await cp(join(ROOT, "fixtures", "demo"), project, { recursive: true });
        const before = sim.requests.length;
        const run = await runChild(process.execPath, [CLI, "-C", project, DEMO_INSTRUCTION], { env, resources: true });
        const fixed = (await readFile(join(project, "src", "greet.js"), "utf8")).includes("Hello,");
        if (run.code !== 0 || !fixed) throw new Error(`the demo task failed (exit ${run.code}, typo fixed: ${fixed}): ${run.stderr.trim()}`);
        result.requests = sim.requests.length - before;
        // The first run only warms the page cache.
        if (i === 0) continue;
        result.wallMs.push(run.wallMs);
        if (run.peakRssMb !== null) result.peakRssMb.push(run.peakRssMb);
        if (run.cpuMs !== null) result.cpuMs.push(run.cpuMs);
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    }
    options.log(`demo: ${options.runs} runs, ${result.requests} requests each`);
  } finally {
    await sim.close();
  }
  return result;
}
