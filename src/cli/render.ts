// The terminal view of the event stream. Progress goes to stderr (one line per tool call, retries,
// a spinner while waiting, token figures); the answer goes to stdout — streamed as it arrives in the
// interactive mode, printed whole at the end otherwise, so `hel "…" > out.txt` holds just the answer.
import type { AgentEvent } from "../agent/events.js";
import type { UsageLedger, UsageReport } from "../agent/usage-ledger.js";
import { hitRatio, type UsageTotals } from "../agent/usage.js";
import { formatUsd } from "../model/prices.js";
import { groupDigits, plural } from "../tools/format.js";
import { isSearchTool, searchSummary } from "../tools/search-format.js";
import { createCommandView } from "./command-view.js";
import type { Output } from "./output.js";

export interface RendererOptions {
  stdout: Output;
  stderr: Output;
  /** Stream the answer and show a spinner (interactive mode). */
  live: boolean;
  /** Print the final answer on stdout (off with --json, which prints its own object). */
  printAnswer: boolean;
  /** Where the end-of-instruction line's figures come from. */
  usage: UsageLedger;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const MAX_ARG_CHARS = 100;
const MAX_SUMMARY_CHARS = 160;

export function createRenderer(options: RendererOptions): { observe(event: AgentEvent): void; stop(): void } {
  const { stdout, stderr } = options;
  let spinner: ReturnType<typeof setInterval> | undefined;
  let streamedText = false;
  const commands = createCommandView(stderr);
  /** Arguments of the searches under way, by call id: their line is written when they end. */
  const searches = new Map<string, string>();

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
        // A search is shown once it is done, as one line with its count; a command as it runs.
        if (isSearchTool(event.name)) searches.set(event.callId, event.arguments);
        else if (!commands.start(event, indent(event))) stderr.write(`${indent(event)}→ ${event.name} ${truncate(event.arguments, MAX_ARG_CHARS)}\n`);
        break;
      case "tool_output":
        commands.output(event);
        break;
      case "tool_end": {
        if (commands.end(event)) break;
        const args = searches.get(event.callId);
        if (args !== undefined) {
          searches.delete(event.callId);
          stderr.write(`${indent(event)}→ ${truncate(searchSummary(event.name, args, event), MAX_SUMMARY_CHARS)}\n`);
        }
        if (event.isError) stderr.write(`${indent(event)}  ✗ ${firstLine(event.result)}\n`);
        break;
      }
      case "delegation_start":
        stderr.write(`⇢ delegating (${event.mode ?? event.kind}) #${event.number}: ${firstLine(event.task)}\n`);
        break;
      case "delegation_end":
        stderr.write(`⇠ delegation #${event.number} ${event.exitReason}: ${formatUsage(event.usage)}\n`);
        break;
      case "turn_end":
        if (event.agent !== "parent") break;
        stopSpinner();
        if (event.error) stderr.write(`hel: ${event.error}\n`);
        if (options.printAnswer && event.answer !== null && !options.live) stdout.write(event.answer + "\n");
        const usage = options.usage.instruction();
        if (usage.total.requests > 0) stderr.write(`${formatSpend(usage)} · context ~${groupDigits(event.contextTokens)} tokens\n`);
        break;
    }
  }
  return { observe, stop: stopSpinner };
}

export function formatUsage(u: UsageTotals): string {
  const ratio = Math.round(hitRatio(u) * 100);
  return `${u.requests} request${u.requests === 1 ? "" : "s"} · ${groupDigits(u.prompt_tokens)} input tokens (${groupDigits(u.prompt_cache_hit_tokens)} cached, ${ratio}%) · ${groupDigits(u.completion_tokens)} output`;
}

/** The instruction's totals and cost, then, when subagents ran, the parent's share and theirs. */
export function formatSpend(report: UsageReport): string {
  const cost = (spend: { cost_usd: number | null }) => (spend.cost_usd === null ? "" : ` · ${formatUsd(spend.cost_usd)}`);
  const line = `${formatUsage(report.total)}${cost(report.total)}`;
  if (report.delegations.length === 0) return line;
  const tokens = (u: UsageTotals) => `${groupDigits(u.prompt_tokens + u.completion_tokens)} tokens`;
  const share = (spend: { cost_usd: number | null }) => (spend.cost_usd === null ? "" : ` ${formatUsd(spend.cost_usd)}`);
  return `${line} (parent${share(report.parent)}, ${tokens(report.parent)}; ${plural(report.delegations.length, "subagent")}${share(report.children)}, ${tokens(report.children)})`;
}

const firstLine = (text: string) => truncate(text.split("\n", 1)[0] ?? "", 160);
const truncate = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + "…" : text);
