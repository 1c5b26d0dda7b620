// Runs one compaction of a live conversation: the in-band summary request, then the view replaced
// through planCompaction, the span added to the archive and reported on the event stream (the session
// writes it at the next save). A failure or a view that does not shrink counts against the limit; at the
// limit hel stops compacting and says so.
import { ModelError } from "../../model/errors.js";
import type { Message } from "../../wire/messages.js";
import type { ArchiveIndex } from "./archive-index.js";
import { compactionInstruction, MAX_COMPACTION_FAILURES, planCompaction, tailStart, tailTokens, type CompactionState } from "./compaction.js";
import type { ModelClient } from "../../model/client.js";
import type { ToolDefinition } from "../../wire/messages.js";
import type { AgentRef, EventSink } from "../events.js";
import type { RequestSettings } from "../request.js";
import { estimateInputTokens, meterBefore, type Meter } from "../meter.js";
import { buildRequest } from "../request.js";
import type { Usage } from "../../wire/messages.js";

export interface CompactionSettings {
  /** Compact when the next request would carry more input tokens than this; 0: never. */
  compactAt: number;
  /** The session's: failures in a row, and whether hel stopped compacting. */
  state: CompactionState;
}

export interface CompactionOutcome {
  meter: Meter | null;
  compacted: boolean;
  /** The summary request's usage, when it was answered. */
  usage?: Usage | undefined;
  requested: boolean;
}

/** What a compaction needs of the agent's run: the same client, tool list and settings as its requests. */
interface CompactRun {
  ref: AgentRef;
  emit: EventSink;
  client: ModelClient;
  toolDefinitions: readonly ToolDefinition[];
  request: RequestSettings;
  archive: ArchiveIndex;
  compaction: CompactionSettings;
}

/** Whether the next request, as the meter tells its size, is over --compact-at. */
export function wantsCompaction(run: { compaction?: CompactionSettings | undefined }, meter: Meter | null, messages: readonly Message[]): boolean {
  const settings = run.compaction;
  return settings !== undefined && settings.compactAt > 0 && !settings.state.stopped && estimateInputTokens(meter, messages) > settings.compactAt;
}

/** The next place after `from`, before `cut`, where a request may start (a user or assistant message), or null. */
function nextStart(messages: readonly Message[], from: number, cut: number): number | null {
  // Leave out about a quarter of what is left each time, so a long conversation fits in a few tries.
  const target = from + Math.max(1, Math.floor((cut - from) / 4));
  for (let i = target; i < cut; i++) if (messages[i]!.role === "user" || messages[i]!.role === "assistant") return i;
  return null;
}

export async function compactNow(messages: Message[], run: CompactRun, signal: AbortSignal, meter: Meter | null, step: number, focus?: string): Promise<CompactionOutcome> {
  const { ref, emit, compaction } = run;
  const fail = (reason: string, extra: Partial<CompactionOutcome> = {}): CompactionOutcome => {
    compaction.state.failures++;
    if (compaction.state.failures >= MAX_COMPACTION_FAILURES) compaction.state.stopped = true;
    emit({ ...ref, type: "compaction_failed", reason, stopped: compaction.state.stopped });
    return { meter, compacted: false, requested: false, ...extra };
  };
  const tokensBefore = estimateInputTokens(meter, messages);
  const keep = tailTokens(compaction.compactAt);
  const cut = tailStart(messages, keep);
  // Nothing before the tail to compact: not a failure, there is simply nothing to do yet.
  if (cut === null) return { meter, compacted: false, requested: false };
  // The conversation exactly as the last request sent it, plus the instruction: a cache hit on all of
  // it. When that is itself too long, its oldest messages are left out until it fits.
  let from = 1;
  let turn;
  for (;;) {
    const body = buildRequest([messages[0]!, ...messages.slice(from), { role: "user", content: compactionInstruction(focus) }], run.toolDefinitions, run.request);
    try {
      turn = await run.client.complete(body, signal, {
        onAttempt: (attempt) => emit({ ...ref, type: "request", step, body, attempt }),
        onRetry: (info) => emit({ ...ref, type: "retry", ...info }),
      });
      break;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      emit({ ...ref, type: "response", step, status: error instanceof ModelError ? (error.status ?? 0) : 0, usage: undefined, finishReason: null, durationMs: 0, error: message });
      if (signal.aborted) return { meter, compacted: false, requested: true };
      const next = error instanceof ModelError && error.kind === "context" ? nextStart(messages, from, cut) : null;
      if (next === null) return fail(`the summary request failed: ${message}`, { requested: true });
      from = next;
    }
  }
  emit({ ...ref, type: "response", step, status: turn.status, usage: turn.usage, finishReason: turn.finishReason, durationMs: turn.durationMs });
  const plan = planCompaction(messages, turn.finishReason === "length" ? "" : (turn.message.content ?? ""), keep, run.archive.entries);
  if (!plan.ok) return fail(plan.reason, { usage: turn.usage, requested: true });
  const next = meter && meterBefore(meter, messages, 1);
  const tokensAfter = estimateInputTokens(next, plan.view);
  if (tokensAfter >= tokensBefore) return fail("the compacted view was no smaller", { usage: turn.usage, requested: true });
  messages.splice(0, messages.length, ...plan.view);
  compaction.state.failures = 0;
  compaction.state.stopped = false;
  run.archive.add(plan.file);
  emit({ ...ref, type: "compaction", file: plan.file, start: 1, tokensBefore, tokensAfter });
  return { meter: next, compacted: true, usage: turn.usage, requested: true };
}
