// The text the model gets for a finished command: first how it ended and how long it took, then its
// output, with the left-out middle of a long output marked by one line that says how much is missing
// and which read_file call shows it. The first line is also the terminal's, made from the same details.
import { count, formatSize, groupDigits } from "../../format.js";
import { readOnCall } from "../spill.js";
import type { CommandDetails } from "../types.js";
import type { CapturedOutput } from "./output.js";
import type { Ending } from "./run-process.js";

export interface CommandOutcome {
  ending: Ending;
  wallMs: number;
  timeoutS: number;
  output: CapturedOutput;
  /** Project-relative path of the file with the whole output, when one was written. */
  spillPath: string | null;
  /** What the sandbox allowed, said when the command exited with an error (it may come from it); null when none. */
  sandbox: string | null;
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
  const { ending, output } = outcome;
  const failed = ending.kind === "exit" && ending.code !== 0;
  const header = [commandHeadline(commandDetails(outcome))];
  if (failed && outcome.sandbox) header.push(`sandbox: ${outcome.sandbox}`);
  if (output.nonText > 0) header.push(`${count(output.nonText, "non-text character")} in the output (binary data, control codes) replaced by \uFFFD or dropped`);
  const lines = [header.join("; ")];
  if (ending.kind === "timeout") lines.push(`If it needs longer and is not waiting for input, run it again with a larger timeout_s (at most 600).`);
  if (ending.kind === "interrupted") lines.push("The user stopped it (Ctrl-C). Ask before running it again.");
  if (output.bytes === 0) return [...lines, "(no output)"].join("\n");
  if (output.omitted === null) return [...lines, trimFinalNewline(output.head)].join("\n");

  const { omitted } = output;
  const gap = `${count(omitted.lines, "line")} (${formatSize(omitted.bytes)})`;
  const where =
    outcome.spillPath !== null
      ? `the whole output (${groupDigits(output.lines)} lines, ${formatSize(output.bytes)}) is in ${outcome.spillPath}; read the left-out part with ${readOnCall(outcome.spillPath, omitted.firstLine)}`
      : `the whole output could not be saved (${output.spillError ?? "unknown error"})`;
  return [...lines, `${output.head}[… ${gap} left out; ${where} …]`, trimFinalNewline(omitted.tail)].join("\n");
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
