// The agent loop, shared by parent and child: send the conversation, append the assistant message,
// run its tool calls (consecutive calls of a concurrent tool, such as delegate_task, at the same
// time), append their results in call order, repeat until a final answer, the step limit, the token
// budget, the output limit, an error or an abort. Everything it does is reported on one event stream.
// A span it folds or compacts joins the archive before it is reported; each tool call's context
// carries the running agent, so a tool that starts a child starts it from this agent's settings.
// What DeepSeek gets wrong in an answer is mended at a few marked points (repair-markup.ts,
// repair-arguments.ts, call-storm.ts, and the resends of a cut call and an empty answer), each reported
// as a `repair` event; a well-formed answer passes them untouched. The user's hooks (hooks/), when
// there are any, run around every tool call (a PreToolUse hook may block it) and before the turn stops
// (a Stop hook may make it go on, a few times a turn).
//
// Invariant on every exit: each tool call in `messages` has its result, so the conversation can be
// sent again (after Ctrl-C, an error, or a resume) without DeepSeek rejecting it.
import type { ModelClient } from "../../model/client.js";
import { ModelError } from "../../model/errors.js";
import { executeToolCall, unparsedArgumentsResult, type ToolResult } from "../../tools/registry.js";
import { noReports, ToolError, type Tool, type ToolContext, type ToolScope } from "../../tools/types.js";
import type { Message, ToolCall, ToolDefinition } from "../../wire/messages.js";
import type { ArchiveIndex } from "../context/archive-index.js";
import type { AgentRef, EventSink, ExitReason, RepairKind } from "../events.js";
import { FOLD_TOOL_NAME, foldedView, planFold, type FoldArgs, type FoldPlanned } from "../context/fold.js";
import { estimateInputTokens, estimateRequestTokens, meterBefore, type Meter } from "../meter.js";
import { buildRequest, MAX_OUTPUT_TOKENS, type RequestSettings } from "../request.js";
import { compactNow, wantsCompaction, type CompactionSettings } from "../context/compact-run.js";
import { autoFoldNow } from "../context/auto-fold-run.js";
import { unstamped, type StampCounter } from "../stamps.js";
import { addUsage, emptyTotals, estimatedUsage, sumTotals, type UsageTotals } from "../usage.js";
import { callsFromMarkup } from "./repair-markup.js";
import { unparsedArguments } from "./repair-arguments.js";
import { stormRepeat, stormResult } from "./call-storm.js";
import type { Hooks } from "../../hooks/hooks.js";
import type { SpendLimit } from "../spend-limit.js";
import { PLAN_NOTE, planPolicy, planRefusal, type PlanMode } from "../plan-mode.js";

export interface AgentSetup {
  ref: AgentRef;
  client: ModelClient;
  tools: readonly Tool[];
  toolDefinitions: readonly ToolDefinition[];
  toolContext: ToolScope;
  request: RequestSettings;
  maxSteps: number;
  /**
   * Prompt plus completion tokens this turn may use (a child's budget). Checked before each request,
   * so a turn overshoots it by at most the request that crossed it.
   */
  maxTokens?: number | null;
  emit: EventSink;
  /** The session's stamp counter, shared by parent and children. */
  stamps: StampCounter;
  /** The session's archive; without one, fold is refused. */
  archive?: ArchiveIndex;
  /** When to compact; without it, or without an archive, the conversation is never compacted. */
  compaction?: CompactionSettings;
  /** The spend limit (--max-cost), asked before each request: spend-limit.ts's answer for it. */
  spendLimit?: SpendLimit;
  /** Fold a command episode that failed, then passed, without waiting for the model (needs an archive). */
  autoFold?: boolean;
  /** The user's hooks, for this agent; absent when none is configured, and then nothing is started. */
  hooks?: Hooks;
  /** The shape the final answer must have (--json-schema): checked once the model stops, asked again once on a mismatch. Only the parent's. */
  answerShape?: AnswerShape;
  /** Plan mode (../plan-mode.ts), read at each call; a child shares its parent's. Absent: never on. */
  plan?: PlanMode;
}

/** How the error of a turn whose answer did not fit --json-schema twice begins. */
export const SHAPE_MISMATCH = "the answer did not fit --json-schema, asked twice";

/** A final answer as --json-schema wants it: its value, or what is wrong with it. */
export type AnswerVerdict = { value: unknown } | { mismatch: string };

export interface AnswerShape {
  check(answer: string): AnswerVerdict;
  /** The user message that asks for the answer again, naming what was wrong. */
  retry(mismatch: string): string;
}

/** A tool call's context in the loop: the running agent rides along, so a tool can start its child. */
export interface AgentToolContext extends ToolContext {
  agent: AgentSetup;
}

export interface TurnOutcome {
  answer: string | null;
  /** The answer's value, parsed and checked, when the run has an answer shape and the answer fits it. */
  structured?: unknown;
  exitReason: ExitReason;
  error?: string;
  usage: UsageTotals;
  meter: Meter | null;
}

const ABORTED_RESULT = "Error: the user interrupted before this tool call ran. Ask whether to continue before repeating it.";
/** How many times a turn Stop hooks may make the agent go on. */
const MAX_STOP_BLOCKS = 3;

/**
 * Starts an instruction: reports it, and adds it to the conversation as a user message — unless the
 * conversation ends with this very instruction, unanswered (its request failed, or was interrupted,
 * before any answer): sent again, it is that one, so the conversation holds it once and the request
 * is the one the instruction would have sent the first time. In plan mode the instruction ends with the note.
 */
export function beginTurn(messages: Message[], given: string, run: Pick<AgentSetup, "ref" | "emit" | "stamps" | "plan">): void {
  // In plan mode the model hears of it here, in the user's message, and nowhere else.
  const instruction = run.plan?.on ? given + PLAN_NOTE : given;
  const last = messages.at(-1);
  const again = last?.role === "user" && unstamped(last.content) === instruction;
  run.emit({ ...run.ref, type: "turn_start", instruction, ...(again ? { again: true as const } : {}) });
  if (!again) append(messages, { role: "user", content: run.stamps.stamp(instruction) }, run);
}

/** Every message joins a conversation through here, so the event stream sees each one. */
function append(messages: Message[], message: Message, run: Pick<AgentSetup, "ref" | "emit">): void {
  messages.push(message);
  run.emit({ ...run.ref, type: "message", message });
}

/** Runs one instruction; the caller has already added the user message (beginTurn, or a child's). */
export async function runTurn(messages: Message[], run: AgentSetup, signal: AbortSignal): Promise<TurnOutcome> {
  const { ref, emit } = run;
  let usage = emptyTotals();
  let meter: Meter | null = null;
  const end = (exitReason: ExitReason, answer: string | null, error?: string, shaped?: { value: unknown }): TurnOutcome => {
    const structured = shaped ? { structured: shaped.value } : {};
    const outcome: TurnOutcome = { answer, exitReason, usage, meter, ...(error ? { error } : {}), ...structured };
    const contextTokens = estimateInputTokens(meter, messages);
    emit({ ...ref, type: "turn_end", answer, exitReason, usage, contextTokens, meter, ...(error ? { error } : {}), ...structured });
    return outcome;
  };

  let retriedForLength = false;
  // Once per turn each: a request whose answer was a cut call goes again with twice the max_tokens, and
  // one whose answer was empty goes again as it was.
  let resentCut = false;
  let resentEmpty = false;
  let maxTokens = run.request.maxTokens;
  let stopBlocks = 0;
  let reshaped = false;
  const compact = async (step: number): Promise<boolean> => {
    if (!run.archive || !run.compaction) return false;
    const done = await compactNow(messages, { ...run, archive: run.archive, compaction: run.compaction }, signal, meter, step);
    meter = done.meter;
    if (done.requested) usage = addUsage(usage, done.usage);
    return done.compacted;
  };
  for (let step = 1; step <= run.maxSteps; step++) {
    const spent = usage.prompt_tokens + usage.completion_tokens;
    if (run.maxTokens != null && spent >= run.maxTokens) {
      return end("token_budget", null, `stopped after ${spent} tokens, at the budget of ${run.maxTokens}`);
    }
    // The view's own changes come before the request: a closed episode folded, then a view too large compacted.
    if (run.autoFold && run.archive) {
      const folded = await autoFoldNow(messages, { ...run, archive: run.archive }, signal, meter, step);
      meter = folded.meter;
      usage = sumTotals(usage, folded.usage);
      if (signal.aborted) return end("aborted", null);
    }
    if (wantsCompaction(run, meter, messages)) await compact(step);
    const body = buildRequest(messages, run.toolDefinitions, maxTokens === run.request.maxTokens ? run.request : { ...run.request, maxTokens });
    maxTokens = run.request.maxTokens;
    const promptTokens = estimateRequestTokens(meter, messages, run.toolDefinitions);
    const allowed = run.spendLimit?.({ agent: ref, promptTokens, model: body.model, maxTokens: body.max_tokens! });
    if (allowed && "refused" in allowed) return end("budget", null, allowed.refused);
    if (allowed) body.max_tokens = allowed.maxTokens;
    let turn;
    try {
      turn = await run.client.complete(body, signal, {
        onAttempt: (attempt) => emit({ ...ref, type: "request", step, body, attempt }),
        onRetry: (info) => emit({ ...ref, type: "retry", ...info }),
        onText: (text) => emit({ ...ref, type: "text_delta", text }),
        onReasoning: (text) => emit({ ...ref, type: "reasoning_delta", text }),
      });
    } catch (error) {
      const modelError = error instanceof ModelError ? error : null;
      const message = error instanceof Error ? error.message : String(error);
      emit({ ...ref, type: "response", step, status: modelError?.status ?? 0, usage: undefined, finishReason: null, durationMs: 0, error: message });
      // Refused for its length: compact, and send it again once.
      if (modelError?.kind === "context" && run.compaction && run.archive && !retriedForLength && !run.compaction.state.stopped) {
        retriedForLength = true;
        run.compaction.window = modelError.window ?? run.compaction.window;
        if (await compact(step)) {
          step--;
          continue;
        }
      }
      return modelError?.kind === "aborted" ? end("aborted", null) : end("error", null, message);
    }
    // A server that reports no usage still answered a request: it is counted, with its tokens estimated.
    const answered = turn.usage ?? estimatedUsage(promptTokens, turn.message);
    usage = addUsage(usage, answered);
    if (turn.usage) meter = { message_count: messages.length, input_tokens: turn.usage.prompt_tokens };
    emit({ ...ref, type: "response", step, status: turn.status, usage: answered, finishReason: turn.finishReason, durationMs: turn.durationMs });

    let message = turn.message;
    const repair = (kind: RepairKind, detail: string) => emit({ ...ref, type: "repair", step, kind, detail });
    if (turn.finishReason === "length") {
      // Cut-off tool calls cannot be run or answered, so only the text is kept; a cut call is asked for
      // once more with room to finish it.
      const cutCall = Boolean(message.tool_calls?.length);
      if (cutCall && !resentCut && body.max_tokens! < MAX_OUTPUT_TOKENS) {
        resentCut = true;
        maxTokens = Math.min(body.max_tokens! * 2, MAX_OUTPUT_TOKENS);
        repair("length", `a tool call was cut at max_tokens ${body.max_tokens}; sent again with ${maxTokens}`);
        continue;
      }
      if (message.content) append(messages, { role: "assistant", content: message.content }, run);
      const error = cutCall ? `a tool call was cut off at the output limit (max_tokens ${body.max_tokens}) and not run — raise --max-output-tokens` : "the answer reached the output limit (max_tokens)";
      return end("length", message.content || null, error);
    }
    const fromMarkup = callsFromMarkup(message, messages.length);
    if (fromMarkup) {
      message = fromMarkup;
      repair("markup", `${fromMarkup.tool_calls!.map((c) => c.function.name).join(", ")} written as text, made into tool calls`);
    }
    const unparsed = unparsedArguments(message);
    if (unparsed) {
      message = unparsed.message;
      repair(
        "arguments",
        `arguments of ${message
          .tool_calls!.filter((c) => unparsed.raw.has(c.id))
          .map((c) => c.function.name)
          .join(", ")} were not JSON; not run`,
      );
    }
    if (!message.tool_calls && !message.content?.trim() && turn.finishReason === "stop") {
      if (!resentEmpty) {
        resentEmpty = true;
        repair("empty", "the answer was empty; asked again");
        continue;
      }
      return end("empty", null, "the model answered nothing, twice — send the instruction again, or put it another way");
    }
    append(messages, message, run);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      const goOn = run.hooks && stopBlocks < MAX_STOP_BLOCKS ? await run.hooks.stop(stopBlocks > 0, signal) : null;
      // Interrupted while a Stop hook ran: the answer is whole all the same.
      if (goOn === null || signal.aborted) {
        const answer = message.content ?? "";
        if (!run.answerShape) return end("completed", answer);
        const verdict = run.answerShape.check(answer);
        if ("value" in verdict) return end("completed", answer, undefined, verdict);
        if (reshaped || signal.aborted) return end("error", answer, `${SHAPE_MISMATCH}: ${verdict.mismatch}`);
        reshaped = true;
        append(messages, { role: "user", content: run.stamps.stamp(run.answerShape.retry(verdict.mismatch)) }, run);
        continue;
      }
      stopBlocks++;
      append(messages, { role: "user", content: run.stamps.stamp(`[Stop hook]\n${goOn}`) }, run);
      continue;
    }

    meter = await runToolCalls(calls, messages, run, signal, meter, { step, unparsed: unparsed?.raw });
    if (signal.aborted) return end("aborted", null);
  }
  return end("max_steps", null, `stopped after ${run.maxSteps} model requests (--max-steps)`);
}

/** The request a batch of calls came from, and its calls whose arguments were not JSON (their text by id). */
interface CallsOf {
  step: number;
  unparsed: ReadonlyMap<string, string> | undefined;
}

/** Runs the calls and appends their results; returns the meter, which a fold changes. */
async function runToolCalls(calls: readonly ToolCall[], messages: Message[], run: AgentSetup, signal: AbortSignal, meter: Meter | null, of: CallsOf): Promise<Meter | null> {
  const ctx: AgentToolContext = { ...run.toolContext, signal, report: noReports, agent: run };
  for (const batch of concurrentBatches(calls, run.tools)) {
    let folded: FoldPlanned | null = null;
    // The calls of a batch all start before any result is awaited (none once the user interrupted);
    // each result joins the conversation in call order.
    const running = batch.map((call) => {
      if (signal.aborted) return null;
      const refusal = refusedCall(call, messages, run, ctx, of);
      if (refusal) return refusal;
      const tools = call.function.name === FOLD_TOOL_NAME && run.archive ? withFold(run.tools, messages, call, run.archive, (plan) => (folded = plan)) : run.tools;
      return runToolCall(call, run, ctx, tools);
    });
    for (const [i, call] of batch.entries()) {
      const pending = running[i];
      if (!pending) {
        append(messages, { role: "tool", tool_call_id: call.id, content: run.stamps.stamp(ABORTED_RESULT) }, run);
        continue;
      }
      const result = await pending;
      const edit = result.edit ? { edit: result.edit } : {};
      const details = result.details ? { details: result.details } : {};
      run.emit({ ...run.ref, type: "tool_end", callId: call.id, name: call.function.name, isError: result.isError, result: result.content, ...edit, ...details });
      append(messages, { role: "tool", tool_call_id: call.id, content: run.stamps.stamp(result.content) }, run);
    }
    if (folded && run.archive) {
      const plan: FoldPlanned = folded;
      // Indexed before anyone reads on: the next fold, recall and ask see the span at once.
      run.archive.add(plan.file);
      const tokensBefore = estimateInputTokens(meter, messages);
      // The last request measured the view before the fold; only its part before the span still holds.
      meter = meter && meterBefore(meter, messages, plan.start);
      messages.splice(0, messages.length, ...foldedView(messages, plan));
      const tokensAfter = estimateInputTokens(meter, messages);
      run.emit({ ...run.ref, type: "fold", file: plan.file, start: plan.start, tokensBefore, tokensAfter });
    }
  }
  return meter;
}

/** The tool list with fold bound to this call and conversation: it plans the fold the loop then applies. */
function withFold(tools: readonly Tool[], view: readonly Message[], call: ToolCall, archive: ArchiveIndex, planned: (plan: FoldPlanned) => void): Tool[] {
  return tools.map((tool) =>
    tool.name !== FOLD_TOOL_NAME
      ? tool
      : {
          ...tool,
          run: async (args: unknown) => {
            const plan = planFold(view, call, args as FoldArgs, archive.entries);
            if (!plan.ok) throw new ToolError(plan.error);
            planned(plan);
            return plan.result;
          },
        },
  );
}

/**
 * The result of a call that must not run, reported as a call that ran: its arguments were not JSON, or
 * it is a storm's third identical call. Null for a call to run.
 */
function refusedCall(call: ToolCall, messages: readonly Message[], run: AgentSetup, ctx: AgentToolContext, of: CallsOf): Promise<ToolResult> | null {
  const name = call.function.name;
  const raw = of.unparsed?.get(call.id);
  let result: ToolResult | null = raw === undefined ? null : unparsedArgumentsResult(name, raw, run.tools, ctx.policy);
  if (!result) {
    const repeat = stormRepeat(messages, call);
    if (!repeat) return null;
    run.emit({ ...run.ref, type: "repair", step: of.step, kind: "storm", detail: `a third identical ${name} call in a row was not run` });
    result = { content: stormResult(name, repeat.stamp), isError: true };
  }
  run.emit({ ...run.ref, type: "tool_start", callId: call.id, name, arguments: call.function.arguments });
  return Promise.resolve(result);
}

async function runToolCall(call: ToolCall, run: AgentSetup, ctx: AgentToolContext, tools: readonly Tool[]): Promise<ToolResult> {
  const name = call.function.name;
  run.emit({ ...run.ref, type: "tool_start", callId: call.id, name, arguments: call.function.arguments });
  const onOutput = (text: string, skippedBytes: number) => run.emit({ ...run.ref, type: "tool_output", callId: call.id, name, text, skippedBytes });
  // In plan mode a call that could change something is refused before any hook sees it, and a command runs read-only.
  const planning = run.plan?.on === true;
  const refusal = planning && tools.some((tool) => tool.name === name) ? planRefusal(name) : null;
  if (refusal !== null) return { content: `Error: ${refusal}`, isError: true };
  const called = { ...ctx, ...(planning ? { policy: planPolicy(ctx.policy) } : {}), report: { ...noReports, onOutput } };
  const { hooks } = run;
  if (!hooks) return executeToolCall(call, tools, called);
  const input = argumentsOf(call);
  const blocked = await hooks.preToolUse(name, input, ctx.signal);
  if (blocked !== null) return { content: `Blocked by a PreToolUse hook: ${blocked}`, isError: true };
  if (ctx.signal.aborted) return { content: ABORTED_RESULT, isError: true };
  const result = await executeToolCall(call, tools, called);
  // After a call that did its work: one that failed changed nothing to follow up on.
  if (result.isError) return result;
  const said = await hooks.postToolUse(name, input, result.content, ctx.signal);
  return said === null ? result : { ...result, content: `${result.content}\n\n[PostToolUse hook]\n${said}` };
}

/** A call's arguments as its hooks get them: the object, or the text when it is not JSON. */
function argumentsOf(call: ToolCall): unknown {
  try {
    return JSON.parse(call.function.arguments || "{}");
  } catch {
    return call.function.arguments;
  }
}

/**
 * The calls in order, cut into batches to run together: a run of consecutive calls of concurrent
 * tools is one batch, and every other call a batch of its own.
 */
function concurrentBatches(calls: readonly ToolCall[], tools: readonly Tool[]): ToolCall[][] {
  const concurrent = (call: ToolCall) => tools.find((t) => t.name === call.function.name)?.concurrent === true;
  const batches: ToolCall[][] = [];
  for (const call of calls) {
    const last = batches.at(-1);
    if (last && concurrent(call) && concurrent(last[0]!)) last.push(call);
    else batches.push([call]);
  }
  return batches;
}
