// How a running command looks on the terminal (stderr): its command line when it starts; while it
// runs, when stderr is a terminal, the last few lines of its output redrawn in place; when it ends,
// the last lines of its output stay (more of them when it failed, so the reason is on screen), with
// how many came before them, and one line saying how it ended and how long it took, and why it was
// given what the sandbox denied it or was refused that, made from the result's details (the words the model's result
// starts with). The output is the one the live view was sent as it came (tool_output), never the result's text.
import type { AgentEvent } from "../../agent/events.js";
import { count } from "../../format.js";
import { commandHeadline, outsideReason } from "../../tools/command/result.js";
import type { Output } from "../../output.js";
import { rowWidth, terminalSafe, truncate, wrapLine } from "./kit/style.js";

type ToolEvent<T extends string> = Extract<AgentEvent, { type: T }>;

/** Lines shown while it runs, and kept once it ended: after a failure enough to read why. */
const LIVE_LINES = 4;
const KEPT_AFTER_SUCCESS = 3;
const KEPT_AFTER_FAILURE = 10;
const REDRAW_MS = 80;
/** Of a line longer than this only the end is kept: the live view shows one screen row of it anyway. */
const MAX_LINE_CHARS = 500;

/** A view that takes a call over while it runs. */
export interface LiveView {
  /** Takes the call over; false when its arguments are not ones this view can show. */
  start(event: ToolEvent<"tool_start">, args: Readonly<Record<string, unknown>> | null, indent: string): boolean;
  output(event: ToolEvent<"tool_output">): void;
  /** Ends the view of the call; false when the view was not showing it. */
  end(event: ToolEvent<"tool_end">): boolean;
}

interface Running {
  callId: string;
  indent: string;
  /** The last non-blank lines of the output, and how many non-blank lines came in all. */
  lines: string[];
  seen: number;
  /** Output was left out on its way here: `seen` counts only what arrived. */
  skipped: boolean;
  partial: string;
  shown: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export function createCommandView(out: Output): LiveView {
  let current: Running | null = null;
  const dim = (text: string) => (out.isTTY ? `\x1b[2m${text}\x1b[22m` : text);

  const erase = (): string => (current && current.shown > 0 ? `\x1b[${current.shown}A\x1b[J` : "");
  // The indent, "  │ " and one column spare: no row wraps, so the cursor knows how far to go back.
  const widthOf = (run: Running) => Math.max(20, rowWidth(out.columns) - run.indent.length - 4);
  const rowsOf = (run: Running, lines: string[]): string => lines.map((row) => `${run.indent}  ${dim(`│ ${terminalSafe(truncate(row, widthOf(run)))}`)}\n`).join("");
  const tail = (run: Running): string[] => [...run.lines, ...(run.partial.trim() !== "" ? [run.partial] : [])];
  const draw = (): void => {
    if (!current) return;
    current.timer = undefined;
    const rows = tail(current).slice(-LIVE_LINES);
    out.write(erase() + rowsOf(current, rows));
    current.shown = rows.length;
  };

  return {
    start(event, args, indent) {
      if (typeof args?.command !== "string") return false;
      const command = args.command.replace(/\s*\n\s*/g, " ⏎ ");
      const line = terminalSafe(`${indent}$ ${command}${typeof args.workdir === "string" && args.workdir ? `   (in ${args.workdir})` : ""}`);
      // All of what runs is shown: on a terminal a long command goes on in rows of its width.
      out.write((out.isTTY ? wrapLine(line, rowWidth(out.columns), `${indent}    `) : [line]).join("\n") + "\n");
      current = { callId: event.callId, indent, lines: [], seen: 0, skipped: false, partial: "", shown: 0, timer: undefined };
      return true;
    },
    output(event) {
      if (!current || current.callId !== event.callId) return;
      if (event.skippedBytes > 0) current.skipped = true;
      const pieces = ((event.skippedBytes > 0 ? "" : current.partial) + event.text).split("\n");
      current.partial = pieces.pop()!.slice(-MAX_LINE_CHARS);
      const complete = pieces.filter((line) => line.trim() !== "");
      current.seen += complete.length;
      current.lines = [...current.lines, ...complete.slice(-KEPT_AFTER_FAILURE).map((line) => line.slice(-MAX_LINE_CHARS))].slice(-KEPT_AFTER_FAILURE);
      if (out.isTTY) current.timer ??= setTimeout(draw, REDRAW_MS);
    },
    end(event) {
      const run = current;
      if (!run || run.callId !== event.callId) return false;
      clearTimeout(run.timer);
      const details = event.details?.kind === "command" ? event.details : null;
      // A call that failed before the command ran says why in its first clause.
      let status = details ? commandHeadline(details) : event.result.split("\n", 1)[0]!.split("; ")[0]!;
      if (details?.outside) status += ` · given what the sandbox denied, ${outsideReason(details.outside)}`;
      if (event.details?.kind === "refusal") status = "not run: you refused to give it what the sandbox denied";
      const failed = event.isError || details?.exitCode !== 0;
      const lines = tail(run);
      const kept = lines.slice(-(failed ? KEPT_AFTER_FAILURE : KEPT_AFTER_SUCCESS));
      const before = run.seen + (lines.length > run.lines.length ? 1 : 0) - kept.length;
      const earlier = run.skipped ? "… more lines before these" : before > 0 ? `… ${count(before, "line")} before these` : null;
      const rows = rowsOf(run, [...(earlier ? [earlier] : []), ...kept]);
      out.write(`${erase()}${rows}${run.indent}  ${failed ? "✗" : "✓"} ${terminalSafe(truncate(status, widthOf(run)))}\n`);
      current = null;
      return true;
    },
  };
}
