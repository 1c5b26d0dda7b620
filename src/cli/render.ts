// The terminal view of the event stream. Progress goes to stderr (one line per tool call, retries,
// a spinner while waiting, token figures); the answer goes to stdout — streamed as it arrives in the
// interactive mode, printed whole at the end otherwise, so `hel "…" > out.txt` holds just the answer.
import type { AgentEvent } from "../agent/events.js";
import { instructionUsage } from "../agent/instruction-usage.js";
import { hitRatio, type UsageTotals } from "../agent/usage.js";
import { groupDigits } from "../tools/format.js";

export interface Output {
  write(text: string): void;
  isTTY?: boolean;
}

export interface RendererOptions {
  stdout: Output;
  stderr: Output;
  /** Stream the answer and show a spinner (interactive mode). */
  live: boolean;
  /** Print the final answer on stdout (off with --json, which prints its own object). */
  printAnswer: boolean;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const MAX_ARG_CHARS = 100;

export function createRenderer(options: RendererOptions): { observe(event: AgentEvent): void; stop(): void } {
  const { stdout, stderr } = options;
  const usage = instructionUsage();
  let spinner: ReturnType<typeof setInterval> | undefined;
  let streamedText = false;

  const stopSpinner = () => {
    if (!spinner) return;
    clearInterval(spinner);
    spinner = undefined;
    stderr.write("\r\x1b[K");
  };
  const startSpinner = () => {
    if (!options.live || !stderr.isTTY || spinner) return;
    let frame = 0;
    spinner = setInterval(() => stderr.write(`\r${SPINNER[frame++ % SPINNER.length]} thinking…`), 80);
  };
  const indent = (event: AgentEvent) => (event.agent === "child" ? "    " : "");

  function observe(event: AgentEvent): void {
    usage.observe(event);
    switch (event.type) {
      case "turn_start":
        if (event.agent === "parent") streamedText = false;
        break;
      case "request":
        startSpinner();
        break;
      case "retry":
        stopSpinner();
        stderr.write(`${indent(event)}… ${event.reason}, retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt + 1})\n`);
        break;
      case "text_delta":
        if (options.live && event.agent === "parent") {
          stopSpinner();
          stdout.write(event.text);
          streamedText = true;
        }
        break;
      case "response":
        stopSpinner();
        if (streamedText && event.agent === "parent") {
          stdout.write("\n");
          streamedText = false;
        }
        break;
      case "tool_start":
        stopSpinner();
        stderr.write(`${indent(event)}→ ${event.name} ${truncate(event.arguments, MAX_ARG_CHARS)}\n`);
        break;
      case "tool_end":
        if (event.isError) stderr.write(`${indent(event)}  ✗ ${firstLine(event.result)}\n`);
        break;
      case "fold":
      case "compaction": {
        const { file } = event;
        const stamps = file.first_stamp === null ? "" : ` #${file.first_stamp}–#${file.last_stamp}`;
        const what = event.type === "fold" ? `folded${stamps} into ${file.handle}` : `compacted${stamps} into ${file.handle}`;
        stderr.write(`${indent(event)}⤓ ${what}: context ~${groupDigits(event.tokensBefore)} → ~${groupDigits(event.tokensAfter)} tokens\n`);
        break;
      }
      case "compaction_failed":
        stderr.write(`hel: compaction failed: ${event.reason}${event.stopped ? " — hel stops compacting this session after 3 failures; /compact tries again, or start a new session" : ""}\n`);
        break;
      case "delegation_start":
        stderr.write(`⇢ delegating (${event.mode}) #${event.number}: ${firstLine(event.task)}\n`);
        break;
      case "delegation_end":
        stderr.write(`⇠ delegation #${event.number} ${event.exitReason}: ${formatUsage(event.usage)}\n`);
        break;
      case "turn_end":
        if (event.agent !== "parent") break;
        stopSpinner();
        if (event.error) stderr.write(`hel: ${event.error}\n`);
        if (options.printAnswer && event.answer !== null && !options.live) stdout.write(event.answer + "\n");
        if (usage.totals().requests > 0) stderr.write(`${formatUsage(usage.totals())} · context ~${groupDigits(event.contextTokens)} tokens\n`);
        break;
    }
  }
  return { observe, stop: stopSpinner };
}

export function formatUsage(u: UsageTotals): string {
  const ratio = Math.round(hitRatio(u) * 100);
  return `${u.requests} request${u.requests === 1 ? "" : "s"} · ${groupDigits(u.prompt_tokens)} input tokens (${groupDigits(u.prompt_cache_hit_tokens)} cached, ${ratio}%) · ${groupDigits(u.completion_tokens)} output`;
}

const firstLine = (text: string) => truncate(text.split("\n", 1)[0] ?? "", 160);
const truncate = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + "…" : text);
