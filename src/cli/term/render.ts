// The terminal view of the event stream: one view per kind of event, a row of the table `views`
// (beside the state the rows share), as each tool's look is a row of tool-views.ts, looked up once
// when the call starts. Progress goes to stderr: a line per tool call (with an edit's diff),
// retries, token figures, and — when stderr is a terminal — a spinner saying what hel is doing (and
// a line for each working subagent), with reasoning folded to its last lines while it streams; and,
// outside the interactive mode, the model's text between its steps. The answer goes to stdout:
// streamed as it arrives in the interactive mode, printed whole at the end otherwise, so
// `hel "…" > out.txt` holds just the answer; rendered as markdown when stdout is a terminal, the
// model's text as it is otherwise.
import type { AgentEvent } from "../../agent/events.js";
import type { HookEvent } from "../../hooks/hook-config.js";
import { childLabel } from "../../agent/children/kinds.js";
import type { UsageLedger, UsageReport } from "../../agent/usage-ledger.js";
import { hitRatio, type UsageTotals } from "../../agent/usage.js";
import { monotonicMs } from "../../clock.js";
import { formatUsd } from "../../model/prices.js";
import { groupDigits, plural } from "../../format.js";
import { splitCompleteBlocks } from "./kit/answer-blocks.js";
import { ChangedFiles } from "./kit/changed-files.js";
import type { LiveView } from "./command-view.js";
import { LiveRegion } from "./kit/live-region.js";
import { stampOf } from "../../agent/stamps.js";
import type { Output } from "../../output.js";
import { Progress } from "./progress.js";
import { errorText, fitWidth, rowWidth, styleFor, terminalSafe, truncate, wrapLine } from "./kit/style.js";
import { callArgs, firstLine, lookOf, toolCallLabel, toolEndLines, type CallArgs, type ToolLook } from "./tool-views.js";
import type { TodoItem } from "../../agent/todo-list.js";
import { todoLine, todoLines } from "./todo-view.js";

export type { Output };

export interface RendererOptions {
  stdout: Output;
  stderr: Output;
  /** Stream the answer as it arrives (interactive mode). */
  live: boolean;
  /** Print the final answer on stdout (off with --json, which prints its own object). */
  printAnswer: boolean;
  /** Print all of the reasoning on stderr instead of folding it. */
  showReasoning: boolean;
  /** For NO_COLOR. */
  env: NodeJS.ProcessEnv;
  /** Where the end-of-instruction line's figures come from. */
  usage: UsageLedger;
  now?: () => number;
}

export interface Renderer {
  observe(event: AgentEvent): void;
  /** Clears the spinner, so a prompt is drawn on a clean line. */
  stop(): void;
  /** Prints a line on stderr, above the spinner (the interactive prompt's notes while hel works). */
  note(line: string): void;
  /** Resolves once everything observed so far is on screen (an answer may wait for the markdown renderer to load). */
  flush(): Promise<void>;
  /** The run's closing lines: the files it changed. */
  finish(): void;
  /** Shows a resumed session's todo list, which the live region then keeps showing while a turn runs. */
  showTodo(items: readonly TodoItem[]): void;
}

const SPIN_MS = 80;
const MAX_SUMMARY_CHARS = 160;
/** Reasoning lines shown while it streams, without --show-reasoning. */
const FOLDED_REASONING_LINES = 3;

type Markdown = typeof import("./kit/markdown.js");
type EventOf<T extends AgentEvent["type"]> = AgentEvent & { type: T };
/** One view per kind of event, as tool-views.ts has one look per tool: a kind without a row does not compile. */
type EventViews = { [T in AgentEvent["type"]]: (event: EventOf<T>) => void };

export function createRenderer(options: RendererOptions): Renderer {
  const { stdout, stderr } = options;
  const now = options.now ?? monotonicMs;
  const errStyle = styleFor(stderr, options.env);
  const outStyle = styleFor(stdout, options.env);
  const progress = new Progress();
  const changed = new ChangedFiles();
  const region = stderr.isTTY ? new LiveRegion(stderr) : null;
  // The answer is rendered when it goes to a terminal; the renderer is loaded when first needed.
  const wantMarkdown = options.printAnswer && Boolean(stdout.isTTY);
  let markdown: Markdown | null = null;
  let pending: Promise<void> | null = null;

  let ticker: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  let streamedText = false;
  /** The parent's answer text not yet printed (markdown mode prints it a block at a time). */
  let answer = "";
  let answerBlocks = 0;
  /** Whether this turn printed anything yet: a rendered answer is set off from the lines above it. */
  let printedInTurn = false;
  /** The parent's reasoning in the current step; `thinking` while it is the latest thing streamed. */
  let reasoning = "";
  let thinking = false;
  let reasoningPrinted = 0;
  /** The parent's todo list, shown in the live region while a turn runs. */
  let todo: readonly TodoItem[] = [];

  /** Writes above the spinner, which is drawn again after. */
  const above = (out: Output, text: string) => {
    printedInTurn = true;
    if (region) region.print(() => out.write(text));
    else out.write(text);
  };
  // On a terminal no line is wider than it: most are cut to its width, figures and errors wrapped.
  const width = () => rowWidth(stderr.columns);
  const fit = (line: string) => (region ? fitWidth(line, width()) : line);
  const wrapped = (line: string) => (region ? wrapLine(line, width()) : [line]);
  const printErr = (...lines: string[]) => {
    // biome-ignore lint/suspicious/noFocusedTests: fit is this file's line fitter, not a focused test
    if (lines.length > 0) above(stderr, lines.map((l) => fit(l) + "\n").join(""));
  };
  /** Subagents working now: while several do, each one's lines name it. */
  const working = new Set<number>();
  const indent = (event: AgentEvent) => (event.agent === "parent" ? "" : working.size > 1 ? `    #${event.delegation ?? 0} ` : "    ");
  // A live view (a running command's tail) is redrawn above the spinner, like every other line.
  const liveOutput: Output = {
    write: (text) => above(stderr, text),
    isTTY: stderr.isTTY,
    get columns() {
      return stderr.columns;
    },
  };
  const liveViews = new Map<NonNullable<ToolLook["live"]>, LiveView>();
  const liveView = (make: NonNullable<ToolLook["live"]>): LiveView => {
    let view = liveViews.get(make);
    if (!view) liveViews.set(make, (view = make(liveOutput)));
    return view;
  };
  /** The calls under way, by call id: how each is shown, its arguments, and the live view showing it. */
  const calls = new Map<string, { look: ToolLook; args: CallArgs; live: LiveView | null }>();
  /** The answer as a terminal shows it, a blank line above when lines came before it. */
  const rendered = (text: string, first: boolean) => `${printedInTurn || !first ? "\n" : ""}${markdown ? markdown.renderMarkdown(text, { style: outStyle, width: stdout.columns || 80 }) : text}\n`;

  const regionLines = (): string[] => {
    const status = progress.lines(now(), frame);
    if (status.length === 0) return [];
    const folded = thinking && !options.showReasoning ? reasoningTail(reasoning, FOLDED_REASONING_LINES).map((l) => errStyle.dim(`  ${l}`)) : [];
    return [...todoLines(todo), ...folded, ...status.map((line) => errStyle.dim(line))];
  };
  const startTicker = () => {
    if (!region || ticker) return;
    ticker = setInterval(() => {
      frame++;
      region.set(regionLines());
    }, SPIN_MS);
    ticker.unref();
    region.set(regionLines());
  };
  const stopTicker = () => {
    clearInterval(ticker);
    ticker = undefined;
    region?.clear();
  };

  /** --show-reasoning: the reasoning's complete lines, dimmed; the rest once it ends. */
  const printReasoning = (final: boolean) => {
    const unprinted = reasoning.slice(reasoningPrinted);
    const upTo = final ? unprinted.length : unprinted.lastIndexOf("\n") + 1;
    if (upTo === 0) return;
    const text = unprinted.slice(0, upTo).replace(/\n$/, "");
    reasoningPrinted += upTo;
    if (text !== "") printErr(errStyle.dim(terminalSafe(text)));
  };
  const endReasoning = () => {
    if (!thinking) return;
    thinking = false;
    if (options.showReasoning) printReasoning(true);
    region?.set(regionLines());
  };

  /** Prints the answer's complete blocks (all of it when `final`), a blank line between blocks. */
  const printAnswerBlocks = (final: boolean) => {
    const { complete, rest } = final ? { complete: answer, rest: "" } : splitCompleteBlocks(answer);
    answer = rest;
    if (complete.trim() === "") return;
    above(stdout, rendered(complete, answerBlocks++ === 0));
  };

  /** A view of the parent's events only: a subagent's show in its delegation's lines and the spinner. */
  const parentOnly =
    <E extends AgentEvent>(view: (event: E) => void) =>
    (event: E) => {
      if (event.agent === "parent") view(event);
    };
  /** A span that left the view for the archive, folded or compacted. */
  const archived = (event: EventOf<"fold" | "compaction">) => {
    const { file } = event;
    const stamps = file.first_stamp === null ? "" : ` #${file.first_stamp}–#${file.last_stamp}`;
    const what = event.type === "fold" ? `${file.auto ? "auto-folded" : "folded"}${stamps} into ${file.handle}` : `compacted${stamps} into ${file.handle}`;
    printErr(`${indent(event)}⤓ ${what}: context ~${groupDigits(event.tokensBefore)} → ~${groupDigits(event.tokensAfter)} tokens`);
  };

  /** The view of each kind of event: what it prints, and what it changes of the view's state. */
  const views: EventViews = {
    turn_start: parentOnly(() => {
      streamedText = false;
      printedInTurn = false;
      startTicker();
    }),
    request: parentOnly(() => {
      reasoning = "";
      reasoningPrinted = 0;
      answerBlocks = 0;
    }),
    retry: (event) => {
      printErr(...wrapped(`${indent(event)}… ${errorText(event.reason)}, retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt + 1})`));
    },
    reasoning_delta: parentOnly((event) => {
      thinking = true;
      reasoning += event.text;
      if (options.showReasoning) printReasoning(false);
    }),
    text_delta: parentOnly((event) => {
      endReasoning();
      if (!options.live) return;
      if (wantMarkdown) {
        answer += event.text;
        printAnswerBlocks(false);
      } else {
        stdout.write(event.text);
        streamedText = true;
      }
    }),
    response: parentOnly(() => {
      endReasoning();
      if (answer !== "") printAnswerBlocks(true);
      if (streamedText) {
        stdout.write("\n");
        streamedText = false;
      }
    }),
    tool_start: (event) => {
      if (event.agent === "parent") endReasoning();
      const look = lookOf(event.name);
      const args = callArgs(event.arguments);
      const live = look.live ? liveView(look.live) : null;
      const taken = live?.start(event, args, indent(event)) === true;
      calls.set(event.callId, { look, args, live: taken ? live : null });
      // A call summed up when it ends shows nothing yet; a live view has drawn its own line.
      if (!look.summary && !taken) printErr(`${indent(event)}→ ${toolCallLabel(event.name, event.arguments, args)}`);
    },
    tool_output: (event) => {
      calls.get(event.callId)?.live?.output(event);
    },
    tool_end: (event) => {
      const call = calls.get(event.callId);
      calls.delete(event.callId);
      if (call?.live?.end(event)) return;
      if (call?.look.summary) printErr(`${indent(event)}→ ${terminalSafe(truncate(call.look.summary(call.args, event), MAX_SUMMARY_CHARS))}`);
      printErr(...toolEndLines(event, errStyle, indent(event)));
      if (event.edit) changed.add(event.edit);
    },
    message: (event) => {
      const { message } = event;
      // What the model says between its steps ("Running the tests.") streams live in the
      // interactive prompt; otherwise stdout waits for the answer alone, so it goes to stderr.
      if (!options.live && event.agent === "parent" && message.role === "assistant" && message.tool_calls && message.content?.trim()) printErr(terminalSafe(message.content.trim()));
      // In the interactive terminal each result's stamp is shown, dim, so `/fold #N` can be typed.
      const stamp = options.live && message.role === "tool" ? stampOf(message) : null;
      if (stamp !== null) printErr(errStyle.dim(`${indent(event)}  #${stamp}`));
    },
    memory_recall: parentOnly((event) => {
      printErr(errStyle.dim(`recalled ${plural(event.facts.length, "fact")} from memory (~${groupDigits(event.tokens)} tokens)`));
    }),
    fold: archived,
    compaction: archived,
    repair: (event) => {
      printErr(errStyle.dim(`${indent(event)}↻ repaired: ${terminalSafe(event.detail)}`));
    },
    compaction_failed: (event) => {
      stderr.write(`hel: compaction failed: ${errorText(event.reason)}${event.stopped ? " — hel stops compacting this session after 3 failures; /compact tries again, or start a new session" : ""}\n`);
    },
    hook: (event) => {
      const line = hookLine(event);
      if (line) printErr(`${indent(event)}${line}`);
    },
    // A child's list is its own: only the parent's is the session's.
    todo: parentOnly((event) => {
      todo = event.items;
      if (region) region.set(regionLines());
      else printErr(todoLine(todo));
    }),
    delegation_start: (event) => {
      working.add(event.number);
      printErr(`⇢ delegating (${childLabel(event)}) #${event.number}: ${firstLine(terminalSafe(event.task))}`);
    },
    delegation_end: (event) => {
      working.delete(event.number);
      printErr(...wrapped(`⇠ delegation #${event.number} ${event.exitReason}: ${formatUsage(event.usage)}`));
    },
    job_start: (event) => {
      printErr(`⧖ job ${event.job} started: ${firstLine(terminalSafe(event.command))}`);
    },
    job_end: (event) => {
      const how = event.killed ? "killed" : event.exitCode !== null ? `exit code ${event.exitCode}` : `killed by ${event.signal ?? "a signal"}`;
      printErr(`⧖ job ${event.job} ended (${how}): ${firstLine(terminalSafe(event.command))}`);
    },
    turn_end: parentOnly((event) => {
      stopTicker();
      if (event.error) stderr.write(`hel: ${errorText(event.error)}\n`);
      if (options.printAnswer && event.answer !== null && !options.live) stdout.write(wantMarkdown ? rendered(event.answer, true) : event.answer + "\n");
      const usage = options.usage.instruction();
      if (usage.total.requests > 0) stderr.write(wrapped(`${formatSpend(usage)} · context ~${groupDigits(event.contextTokens)} tokens`).join("\n") + "\n");
    }),
  };

  function handle(event: AgentEvent): void {
    progress.observe(event, now());
    (views[event.type] as (event: AgentEvent) => void)(event);
  }

  /** Events that print the answer: the markdown renderer must be loaded before they are handled. */
  const needsMarkdown = (event: AgentEvent) => wantMarkdown && event.agent === "parent" && ((options.live && event.type === "text_delta") || (!options.live && event.type === "turn_end" && event.answer !== null));

  function observe(event: AgentEvent): void {
    if (!markdown && !pending && needsMarkdown(event)) {
      // Until it is loaded, events wait their turn, so what is printed keeps its order.
      pending = import("./kit/markdown.js").then((module) => {
        markdown = module;
      });
    }
    if (!pending) return handle(event);
    const next: Promise<void> = pending.then(() => handle(event));
    pending = next;
    void next
      .catch((error: unknown) => stderr.write(`hel: ${errorText(error instanceof Error ? error.message : String(error))} — the terminal view stops here; the run goes on\n`))
      .finally(() => {
        if (pending === next) pending = null;
      });
  }

  return {
    observe,
    stop: stopTicker,
    note: (line) => printErr(line),
    flush: () => pending?.catch(() => undefined) ?? Promise.resolve(),
    finish: () => {
      for (const line of changed.lines(errStyle)) stderr.write(line + "\n");
    },
    showTodo: (items) => {
      todo = items;
      printErr(...todoLines(items));
    },
  };
}

/** What a hook that exited 2 did, in its event's terms. */
const BLOCKED: Record<HookEvent, string> = {
  PreToolUse: "blocked the call",
  PostToolUse: "objected to the call",
  UserPromptSubmit: "blocked the instruction, which was not sent",
  Stop: "did not let the agent stop",
  PreCompact: "exited 2",
  SessionStart: "exited 2",
};

/** A hook's line: what it blocked, or why it counts as a warning; none for a hook that went on. */
function hookLine(event: Extract<AgentEvent, { type: "hook" }>): string | null {
  const hook = `the ${event.event} hook ${JSON.stringify(truncate(terminalSafe(event.command), 60))}`;
  const said = event.stderr ? `: ${errorText(event.stderr)}` : "";
  if (event.timedOut) return `hel: ${hook} ran past its timeout and was ended — the run goes on`;
  if (event.exitCode === 0) return null;
  if (event.exitCode === 2) return `↯ ${hook} ${BLOCKED[event.event]}${said}`;
  return `hel: ${hook} failed (${event.exitCode === null ? "ended by a signal" : `exit ${event.exitCode}`})${said} — the run goes on`;
}

/** The last `count` non-empty lines of the reasoning so far, made safe for the terminal. */
function reasoningTail(text: string, count: number): string[] {
  return terminalSafe(text)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-count);
}

function formatUsage(u: UsageTotals): string {
  const ratio = Math.round(hitRatio(u) * 100);
  return `${u.requests} request${u.requests === 1 ? "" : "s"} · ${groupDigits(u.prompt_tokens)} input tokens (${groupDigits(u.prompt_cache_hit_tokens)} cached, ${ratio}%) · ${groupDigits(u.completion_tokens)} output`;
}

/** The instruction's totals and cost, then, when subagents ran, the parent's share and theirs. */
function formatSpend(report: UsageReport): string {
  const cost = (spend: { cost_usd: number | null }) => (spend.cost_usd === null ? "" : ` · ${formatUsd(spend.cost_usd)}`);
  const line = `${formatUsage(report.total)}${cost(report.total)}`;
  if (report.delegations.length === 0) return line;
  const tokens = (u: UsageTotals) => `${groupDigits(u.prompt_tokens + u.completion_tokens)} tokens`;
  const share = (spend: { cost_usd: number | null }) => (spend.cost_usd === null ? "" : ` ${formatUsd(spend.cost_usd)}`);
  return `${line} (parent${share(report.parent)}, ${tokens(report.parent)}; ${plural(report.delegations.length, "subagent")}${share(report.children)}, ${tokens(report.children)})`;
}
