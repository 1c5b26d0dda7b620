// The context economy, measured. (1) The seed article's example rebuilt with the simulator: an episode
// of about 43K tokens of build output, folded into a note or left in place, then ten more instructions;
// the note's size and ratio, the prompt tokens and cache-hit share of those ten requests, and their
// cost at DeepSeek's prices. (2) Fold and compaction of a 10 MB session: the time to build the new view
// and save the snapshot and archive.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN } from "../scripts/hel-bin.js";
import { startSimulator, type SimReply } from "../sim/index.js";
import { episode } from "../sim/policies.js";
import { countTokens } from "../sim/tokens.js";
import { planCompaction } from "../src/agent/context/compaction.js";
import { foldedView, planFold } from "../src/agent/context/fold.js";
import { buildSystemPrompt, isoDay } from "../src/agent/system-prompt.js";
import { archiveStore } from "../src/session/archive-store.js";
import type { ArchiveFile } from "../src/agent/archive.js";
import { saveSnapshot } from "../src/session/snapshot-file.js";
import type { SnapshotInput } from "../src/session/snapshot-format.js";
import type { ChatRequest, Message, Usage } from "../src/wire/messages.js";
import { historyOfBytes } from "./history.js";

/** deepseek-flash, off-peak, US dollars per million tokens. */
const PRICE = { hit: 0.003, miss: 0.15, output: 0.6 };

export interface EpisodeArm {
  /** The ten requests after the episode. */
  promptTokens: number;
  hitShare: number;
  costUsd: number;
}
export interface EpisodeResult {
  episodeTokens: number;
  noteTokens: number;
  folded: EpisodeArm;
  inline: EpisodeArm;
}

const BUILD_LINES = 870;
const FILES = ["build1.log", "build2.log", "build3.log"];

async function runArm(fold: boolean): Promise<{ after: Usage[]; requests: ChatRequest[] }> {
  const project = await mkdtemp(join(tmpdir(), "hel-bench-ctx-"));
  try {
    for (const [n, file] of FILES.entries()) {
      const lines = Array.from({ length: BUILD_LINES / FILES.length }, (_, i) => `src/mod${n}/file${i % 40}.ts(${i},7): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.`);
      await writeFile(join(project, file), lines.join("\n") + "\n");
    }
    // Tool call ids that depend only on the conversation: both arms send the same bytes up to the fold.
    const sim = await startSimulator({
      policy: (req, ctx) => {
        const reply = episode(req, ctx) as SimReply;
        return { ...reply, ...(reply.tool_calls ? { tool_calls: reply.tool_calls.map((c, i) => ({ ...c, id: `call_${req.messages.length}_${i}` })) } : {}) };
      },
    });
    try {
      const lines = [`the build fails: look at ${FILES.join(" ")}`, ...Array.from({ length: 10 }, (_, i) => `continue with the export feature, step ${i + 1}`)];
      const tools = fold ? "read_file,search_replace,fold,recall" : "read_file,search_replace,recall";
      await helOnLines(sim.url, ["-C", project, "--tools", tools, "--effort", "none", "--compact-at", "0"], lines);
      const after = sim.requests.slice(-10);
      return { after: after.map((r) => r.usage!), requests: sim.requests.map((r) => r.body as ChatRequest) };
    } finally {
      await sim.close();
    }
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

/** hel run on the simulator at `url`, one instruction per line on stdin; throws when it fails. */
export async function helOnLines(url: string, args: readonly string[], lines: readonly string[]): Promise<void> {
  // Not spawnSync: the simulator answering hel runs in this process.
  const child = spawn(process.execPath, [HEL_BIN, ...args], { env: { ...process.env, DEEPSEEK_API_KEY: "sk-bench", HEL_BASE_URL: url }, stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(lines.join("\n") + "\n");
  const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (status !== 0) throw new Error(`hel exited ${status}: ${stderr.split("\n").slice(-3).join(" ")}`);
}

function arm(after: readonly Usage[]): EpisodeArm {
  const prompt = after.reduce((n, u) => n + u.prompt_tokens, 0);
  const hit = after.reduce((n, u) => n + u.prompt_cache_hit_tokens, 0);
  const output = after.reduce((n, u) => n + u.completion_tokens, 0);
  return { promptTokens: prompt, hitShare: prompt > 0 ? hit / prompt : 0, costUsd: (hit * PRICE.hit + (prompt - hit) * PRICE.miss + output * PRICE.output) / 1e6 };
}

export async function measureEpisode(): Promise<EpisodeResult> {
  const folded = await runArm(true);
  const inline = await runArm(false);
  // The episode: the reads' calls and results in the last request before the fold.
  const beforeFold = folded.requests.find((r, i) => folded.requests[i + 1] && folded.requests[i + 1]!.messages.length < r.messages.length)!;
  const start = beforeFold.messages.findIndex((m) => m.role === "assistant");
  const episodeTokens = beforeFold.messages.slice(start).reduce((n, m) => n + countTokens(JSON.stringify(m)), 0);
  const note = folded.requests.at(-10)!.messages.find((m) => m.role === "tool" && m.content.includes("handle: "))!;
  return { episodeTokens, noteTokens: countTokens(JSON.stringify(note)), folded: arm(folded.after), inline: arm(inline.after) };
}

export interface ViewChangeTimes {
  messages: number;
  foldMs: number[];
  compactMs: number[];
}

/** Fold and compaction of a 10 MB session: the new view, then the archive file and the snapshot saved. */
export async function measureViewChanges(reps = 5): Promise<ViewChangeTimes> {
  const project = await mkdtemp(join(tmpdir(), "hel-bench-ctx-"));
  try {
    const system = buildSystemPrompt({ projectDir: project, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules: [] });
    const history = historyOfBytes(system, 10_000_000);
    const foldCall = { id: "call_fold", type: "function" as const, function: { name: "fold", arguments: "{}" } };
    const episodeStart = history.length;
    const view: Message[] = [
      ...history,
      { role: "user", content: "[#1] the build fails" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_r", type: "function", function: { name: "read_file", arguments: '{"path":"build.log"}' } }] },
      { role: "tool", tool_call_id: "call_r", content: `[#2] ${"error TS2345 ".repeat(2000)}` },
      { role: "assistant", content: null, tool_calls: [foldCall] },
    ];
    const note = { changed: "nothing", learned: "the build passes once the cache is cleared", decided: "kept the lockfile", open: "nothing" };
    const save = async (messages: readonly Message[], id: string, archive: ArchiveFile): Promise<void> => {
      const now = new Date().toISOString();
      const { stamps: _, messages: __, ...entry } = archive;
      const sha256 = await archiveStore(project, id).write(archive);
      const snapshot: SnapshotInput = {
        schema_version: 2,
        session_id: id,
        cwd: project,
        created_at: now,
        updated_at: now,
        request_config: { model: "deepseek-flash", max_output_tokens: 8192, max_steps: 50, effort: "none", access: "edit", delegate: null, compaction: { enabled: true, threshold_tokens: 838_860 } },
        meter: { message_count: 0, input_tokens: 0 },
        usage: { requests: 0, prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0 },
        children: 0,
        stamps: 3,
        compaction: { failures: 0, stopped: false },
        archive: [{ ...entry, sha256 }],
        cursors: {},
        tools: [],
        messages: [...messages],
      };
      await saveSnapshot(project, snapshot);
    };
    const out: ViewChangeTimes = { messages: view.length, foldMs: [], compactMs: [] };
    for (let i = 0; i < reps; i++) {
      let t0 = performance.now();
      const plan = planFold(view, foldCall, { since: "#2", note }, []);
      if (!plan.ok) throw new Error(plan.error);
      const next = foldedView([...view, { role: "tool", tool_call_id: "call_fold", content: `[#3] ${plan.result}` }], plan);
      await save(next, `bench-fold-${i}`, plan.file);
      out.foldMs.push(performance.now() - t0);
      if (next.length !== episodeStart + 3) throw new Error("the fold removed the wrong span");

      t0 = performance.now();
      const compacted = planCompaction(view.slice(0, -1), "## Goal\nkeep going", 20_000, []);
      if (!compacted.ok) throw new Error(compacted.reason);
      await save(compacted.view, `bench-compact-${i}`, compacted.file);
      out.compactMs.push(performance.now() - t0);
    }
    return out;
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}
