// Command episodes: a run_command whose command and workdir failed (a non-zero exit or a timeout) once
// or more, then exited 0. Pure: from the view to the episode its latest tool results just closed, so
// it is found once, before the request that follows it, and never again; and the places `/fold` alone
// offers to fold since.
import { traitsOf } from "../toolbox.js";
import type { Message, ToolCall } from "../../wire/messages.js";
import { messageJson } from "../../wire/serialize.js";
import { estimateTokens } from "../meter.js";
import { stampOf, unstamped } from "../stamps.js";
import { lastNoteIndex } from "./fold.js";

export interface CommandEpisode {
  /** The span: from the assistant message that made the first failing call to the end of the view. */
  start: number;
  command: string;
  workdir: string;
  failures: number;
  tokens: number;
}

type Outcome = "passed" | "failed" | "other";

/** How a run_command result says the command ended; a refused call (an error result) is neither. */
function outcomeOf(result: string): Outcome {
  const text = unstamped(result);
  if (/^exit code 0 /.test(text)) return "passed";
  if (/^exit code \d+ /.test(text) || text.startsWith("timed out after ")) return "failed";
  return "other";
}

function commandKey(call: ToolCall): string | null {
  if (!traitsOf(call.function.name)?.runsCommands) return null;
  try {
    const args = JSON.parse(call.function.arguments) as { command?: unknown; workdir?: unknown };
    if (typeof args.command !== "string") return null;
    const workdir =
      typeof args.workdir === "string"
        ? args.workdir
            .trim()
            .replace(/^\.\/?/, "")
            .replace(/\/$/, "")
        : "";
    return JSON.stringify([args.command.trim(), workdir]);
  } catch {
    return null;
  }
}

/** The outcome of each run_command call of the assistant message at `at`, from the results after it. */
function outcomes(view: readonly Message[], at: number): { key: string; outcome: Outcome }[] {
  const m = view[at]!;
  if (m.role !== "assistant") return [];
  const out: { key: string; outcome: Outcome }[] = [];
  for (const call of m.tool_calls ?? []) {
    const key = commandKey(call);
    if (key === null) continue;
    const result = view.slice(at + 1).find((r) => r.role === "tool" && r.tool_call_id === call.id);
    if (result?.role === "tool") out.push({ key, outcome: outcomeOf(result.content) });
  }
  return out;
}

/**
 * The episode the view's last tool results closed, when it is larger than `minTokens`; null otherwise.
 * It never starts at or before a fold note or compaction summary, so a span the model folded itself
 * stays folded its way.
 */
export function closedEpisode(view: readonly Message[], minTokens: number): CommandEpisode | null {
  let last = view.length - 1;
  while (last > 0 && view[last]!.role === "tool") last--;
  if (last === view.length - 1 || view[last]!.role !== "assistant") return null;
  const barrier = lastNoteIndex(view);
  for (const { key, outcome } of outcomes(view, last)) {
    if (outcome !== "passed") continue;
    let start = -1;
    let failures = 0;
    for (let i = last - 1; i > barrier; i--) {
      const same = outcomes(view, i).filter((o) => o.key === key);
      if (same.some((o) => o.outcome === "passed")) break;
      const failed = same.filter((o) => o.outcome === "failed").length;
      if (failed > 0) {
        start = i;
        failures += failed;
      }
    }
    if (start < 0) continue;
    const tokens = view.slice(start).reduce((n, m) => n + estimateTokens(messageJson(m)), 0);
    if (tokens <= minTokens) continue;
    const [command, workdir] = JSON.parse(key) as [string, string];
    return { start, command, workdir, failures, tokens };
  }
  return null;
}

/** A place `/fold #N` may start from: a closed command episode, or an instruction not folded yet. */
export interface FoldChoice {
  stamp: number;
  label: string;
  /** From there to the end of the view. */
  tokens: number;
}

/**
 * What `/fold` alone offers: every closed command episode and every instruction since the last fold
 * note or compaction summary, oldest first, each with the stamp to fold since.
 */
export function foldChoices(view: readonly Message[]): FoldChoice[] {
  const barrier = lastNoteIndex(view);
  const tokensFrom = (at: number) => view.slice(at).reduce((n, m) => n + estimateTokens(messageJson(m)), 0);
  const firstStamp = (at: number): number | null => {
    for (let i = at; i < view.length; i++) {
      const n = stampOf(view[i]!);
      if (n !== null) return n;
    }
    return null;
  };
  const choices: FoldChoice[] = [];
  for (let i = barrier + 1; i < view.length; i++) {
    const m = view[i]!;
    const stamp = stampOf(m);
    if (m.role === "user" && stamp !== null) choices.push({ stamp, label: `instruction: ${unstamped(m.content).split("\n")[0]!.slice(0, 60)}`, tokens: tokensFrom(i) });
    if (m.role !== "assistant") continue;
    // A passing command whose earlier runs failed closes an episode that began at the first failure.
    const closed = closedEpisode(view.slice(0, nextNonTool(view, i)), 0);
    const at = closed ? firstStamp(closed.start) : null;
    if (closed && at !== null && closed.start > barrier) {
      const times = closed.failures === 1 ? "once" : `${closed.failures} times`;
      choices.push({ stamp: at, label: `\`${closed.command}\` failed ${times}, then passed`, tokens: tokensFrom(closed.start) });
    }
  }
  return choices.sort((a, b) => a.stamp - b.stamp);
}

/** The index after the results that follow the assistant message at `at`. */
function nextNonTool(view: readonly Message[], at: number): number {
  let i = at + 1;
  while (i < view.length && view[i]!.role === "tool") i++;
  return i;
}
