// How a running command looks on the terminal (stderr): its command line when it starts; while it
// runs, when stderr is a terminal, the last few lines of its output redrawn in place; when it ends,
// those lines give way to one line saying how it ended and how long it took, and why it ran outside the
// sandbox or was refused that, made from the result's details (the words the model's result starts with).
import type { AgentEvent } from "../../agent/events.js";
import { commandHeadline, outsideReason } from "../../tools/command/result.js";
import type { Output } from "./output.js";
import { terminalSafe, truncate } from "./style.js";

type ToolEvent<T extends string> = Extract<AgentEvent, { type: T }>;

const TAIL_LINES = 4;
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

export function createCommandView(out: Output): LiveView {
  let current: { callId: string; indent: string; lines: string[]; partial: string; shown: number; timer: ReturnType<typeof setTimeout> | undefined } | null = null;

  const erase = (): string => (current && current.shown > 0 ? `\x1b[${current.shown}A\x1b[J` : "");
  const draw = (): void => {
    if (!current) return;
    current.timer = undefined;
    const rows = [...current.lines, current.partial].filter((line) => line.trim() !== "").slice(-TAIL_LINES);
    const width = Math.max(20, (out.columns ?? 80) - current.indent.length - 5);
    let text = erase();
    for (const row of rows) text += `${current.indent}  \x1b[2m│ ${terminalSafe(truncate(row, width))}\x1b[22m\n`;
    out.write(text);
    current.shown = rows.length;
  };

  return {
    start(event, args, indent) {
      if (typeof args?.command !== "string") return false;
      const command = args.command.replace(/\s*\n\s*/g, " ⏎ ");
      out.write(terminalSafe(`${indent}$ ${command}${typeof args.workdir === "string" && args.workdir ? `   (in ${args.workdir})` : ""}`) + "\n");
      current = { callId: event.callId, indent, lines: [], partial: "", shown: 0, timer: undefined };
      return true;
    },
    output(event) {
      if (!current || current.callId !== event.callId || !out.isTTY) return;
      const pieces = ((event.skippedBytes > 0 ? "" : current.partial) + event.text).split("\n");
      current.partial = pieces.pop()!.slice(-MAX_LINE_CHARS);
      if (pieces.length > 0) current.lines = [...current.lines, ...pieces.slice(-TAIL_LINES).map((line) => line.slice(-MAX_LINE_CHARS))].slice(-TAIL_LINES);
      current.timer ??= setTimeout(draw, REDRAW_MS);
    },
    end(event) {
      if (!current || current.callId !== event.callId) return false;
      clearTimeout(current.timer);
      const details = event.details?.kind === "command" ? event.details : null;
      // A call that failed before the command ran says why in its first clause.
      let status = details ? commandHeadline(details) : event.result.split("\n", 1)[0]!.split("; ")[0]!;
      if (details?.outside) status += ` · outside the sandbox, ${outsideReason(details.outside)}`;
      if (event.details?.kind === "refusal") status = "not run: you refused to let it run outside the sandbox";
      const failed = event.isError || details?.exitCode !== 0;
      out.write(`${erase()}${current.indent}  ${failed ? "✗" : "✓"} ${terminalSafe(truncate(status, 160))}\n`);
      current = null;
      return true;
    },
  };
}
