// The text the model gets for a finished command: first how it ended and how long it took, then its
// output, with the left-out middle of a long output marked by one line that says how much is missing
// and which read_file call shows it, followed by the middle's first lines that name an error or failure
// (of lines alike, the first few and a count of the rest).
import { count, formatSize, groupDigits } from "../../format.js";
import { readOnCall } from "../spill.js";
import type { CommandDetails, SandboxGrant } from "../types.js";
import type { CapturedOutput } from "./output.js";
import type { Ending } from "./run-process.js";
import { describeGrant } from "./sandbox-grant.js";

/** Why a command was given more than the sandbox its access gives. */
export type CommandOutside = NonNullable<CommandDetails["outside"]>;

export interface CommandOutcome {
  ending: Ending;
  wallMs: number;
  timeoutS: number;
  output: CapturedOutput;
  /** Project-relative path of the file with the whole output, when one was written. */
  spillPath: string | null;
  /** What the sandbox allowed, said when the command exited with an error (it may come from it); null when none. */
  sandbox: string | null;
  /** What the command changed in the project's git settings and hooks, and was put back. */
  gitPutBack: readonly string[];
  /** What the command made or changed of the places kept read-only to it, and was undone (kept-guard.ts). */
  keptPutBack?: readonly string[];
  /** What it was given beyond the sandbox its access gives, and why, when it was. */
  outside?: (CommandOutside & { grant: SandboxGrant }) | null;
  /** What the sandbox seems to have stopped now, and what an escalation would give (with what it was given), when the model may ask. */
  escalation?: { denied: SandboxGrant; asked: SandboxGrant } | null;
}

export function commandDetails(outcome: Pick<CommandOutcome, "ending" | "wallMs" | "timeoutS">): CommandDetails {
  const { ending } = outcome;
  return {
    kind: "command",
    exitCode: ending.kind === "exit" ? ending.code : null,
    signal: ending.kind === "exit" ? ending.signal : null,
    durationMs: outcome.wallMs,
    timeoutS: outcome.timeoutS,
    timedOut: ending.kind === "timeout",
    interrupted: ending.kind === "interrupted",
  };
}

export function formatCommandResult(outcome: CommandOutcome): string {
  const { ending, output, outside } = outcome;
  const failed = ending.kind === "exit" && ending.code !== 0;
  const header = [commandHeadline(commandDetails(outcome))];
  if (failed && outcome.sandbox) header.push(`sandbox: ${outcome.sandbox}`);
  if (output.nonText > 0) header.push(`${count(output.nonText, "non-text character")} in the output (binary data, control codes) replaced by \uFFFD or dropped`);
  const lines = [header.join("; ")];
  if (outside) lines.push(`It ran in the sandbox, given ${describeGrant(outside.grant)}: ${outsideReason(outside)}.`);
  if (outcome.escalation) lines.push(escalationHint(outcome.escalation));
  if (ending.kind === "timeout") lines.push(`If it needs longer and is not waiting for input, run it again with a larger timeout_s (at most 600).`);
  if (ending.kind === "interrupted") lines.push("The user stopped it (Ctrl-C). Ask before running it again.");
  lines.push(...putBackLines(outcome.gitPutBack, outcome.keptPutBack ?? []));
  return withOutput(lines, output, outcome.spillPath);
}

/** What was put back after a command, for the model. */
export function putBackLines(gitPutBack: readonly string[], keptPutBack: readonly string[]): string[] {
  const lines: string[] = [];
  if (gitPutBack.length > 0) lines.push(`Git settings and hooks are the user's, so what the command changed there was put back: ${gitPutBack.join("; ")}.`);
  if (keptPutBack.length > 0) lines.push(`Some places are read-only to commands, so what the command made there was undone: ${keptPutBack.join("; ")}.`);
  return lines;
}

/** `lines`, then the output: whole, or its head, failing lines and tail, with where the whole is. */
export function withOutput(lines: readonly string[], output: CapturedOutput, spillPath: string | null): string {
  if (output.bytes === 0) return [...lines, "(no output)"].join("\n");
  if (output.omitted === null) return [...lines, trimFinalNewline(output.head)].join("\n");

  const { omitted } = output;
  const gap = `${count(omitted.lines, "line")} (${formatSize(omitted.bytes)})`;
  const where =
    spillPath !== null
      ? `the whole output (${groupDigits(output.lines)} lines, ${formatSize(output.bytes)}) is in ${spillPath}; read the left-out part with ${readOnCall(spillPath, omitted.firstLine)}`
      : `the whole output could not be saved (${output.spillError ?? "unknown error"})`;
  if (omitted.failingLines === 0) return [...lines, `${output.head}[… ${gap} left out; ${where} …]`, trimFinalNewline(omitted.tail)].join("\n");
  // What failed is what the model needs of a long log: those lines of the middle, then the tail.
  const alike = omitted.failing.reduce((n, f) => n + f.alike, 0);
  const all = omitted.failing.length + alike === omitted.failingLines;
  const shown = !all ? `the first ${omitted.failing.length} follow` : alike > 0 ? "each kind follows, with how many more are like it" : "they follow";
  return [
    ...lines,
    `${output.head}[… ${gap} left out, ${groupDigits(omitted.failingLines)} of them naming an error or failure (${shown}, numbered); ${where} …]`,
    ...omitted.failing.map((f) => `${f.line}: ${f.text}${f.alike > 0 ? ` [and ${count(f.alike, "more line")} like it]` : ""}`),
    "[…]",
    trimFinalNewline(omitted.tail),
  ].join("\n");
}

/** Why it was given more than the sandbox gives, in words for the model and for people: "approved once by the user". */
export function outsideReason(outside: CommandOutside): string {
  switch (outside.by) {
    case "rule":
      return `allowed by the rule${(outside.rules ?? []).length > 1 ? "s" : ""} ${(outside.rules ?? []).map((r) => JSON.stringify(r)).join(", ")}`;
    case "once":
      return "approved once by the user";
    case "always":
      return "approved by the user for the rest of the session";
    case "remembered":
      return "approved earlier in this session";
  }
}

function escalationHint({ denied, asked }: { denied: SandboxGrant; asked: SandboxGrant }): string {
  const what = [...(denied.network ? ["has no network"] : []), ...(denied.writable.length > 0 ? ["lets a command write only in the project and /tmp"] : [])].join(" and ");
  return `The sandbox ${what}, which is likely why it failed. If the task needs it, call run_command again with the same command, escalate: true and a justification: the user is asked whether to give it ${describeGrant(asked)} (in the sandbox still).`;
}

/** How the command ended and how long it took: "exit code 0 · 0.01 s". */
export function commandHeadline(details: CommandDetails): string {
  const time = seconds(details.durationMs);
  if (details.timedOut) return `timed out after ${details.timeoutS} s: the command and every process it started were ended`;
  if (details.interrupted) return `interrupted after ${time}: the command and every process it started were ended`;
  return details.exitCode !== null ? `exit code ${details.exitCode} · ${time}` : `killed by ${details.signal} · ${time}`;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function trimFinalNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
