// Runs one compaction of a live conversation: the in-band summary request, then the view replaced
// through planCompaction, the span added to the archive and reported on the event stream (the session
// writes it at the next save). A failure or a view that does not shrink counts against the limit; at the
// limit hel stops compacting and says so. The user's PreCompact hooks run just before the summary is
// asked for, whether the user asked (manual) or the size did (auto).
import { ModelError } from "../../model/errors.js";
import type { Message, ToolDefinition } from "../../wire/messages.js";
import type { ArchiveIndex } from "./archive-index.js";
import { compactionInstruction, instructionsBlock, MAX_COMPACTION_FAILURES, planCompaction, tailStart, tailTokens, type CompactionState } from "./compaction.js";
import { estimateTokens } from "../meter.js";
import { messageJson } from "../../wire/serialize.js";
import { estimateInputTokens, estimateRequestTokens, meterBefore, type Meter } from "../meter.js";
import type { Usage } from "../../wire/messages.js";
import { askInBand, type InBandRun } from "./in-band.js";
import type { Hooks } from "../../hooks/hooks.js";

export interface CompactionSettings {
  /** Compact when the next request would carry more input tokens than this; 0: never. */
  compactAt: number;
  /** The session's: failures in a row, and whether hel stopped compacting. */
  state: CompactionState;
  /** The model's context window, once a request refused for its length named it. */
  window?: number;
}

export interface CompactionOutcome {
  meter: Meter | null;
  compacted: boolean;
  /** The summary request's usage, when it was answered. */
  usage?: Usage | undefined;
  requested: boolean;
  /** Set when the conversation is too small to gain from a compaction: its size in tokens. */
  tooSmall?: number;
}

/** A span smaller than this is not worth a summary asked for by hand: the summary would be about as long. */
export const MIN_SPAN_TOKENS = 1000;

/** What a compaction needs of the agent's run: the same client, tool list and settings as its requests. */
interface CompactRun extends InBandRun {
  archive: ArchiveIndex;
  compaction: CompactionSettings;
  hooks?: Hooks | undefined;
}

/** A compaction the user asked for: what to keep in mind, and the smallest span worth a summary. */
export interface AskedCompaction {
  focus?: string | undefined;
  minSpanTokens: number;
}

/** Whether the next request, as the meter tells its size, is over --compact-at. */
export function wantsCompaction(run: { compaction?: CompactionSettings | undefined; toolDefinitions: readonly ToolDefinition[] }, meter: Meter | null, messages: readonly Message[]): boolean {
  const settings = run.compaction;
  if (settings === undefined || settings.compactAt <= 0 || settings.state.stopped) return false;
  const limit = settings.window ? Math.min(settings.compactAt, Math.floor(settings.window * 0.8)) : settings.compactAt;
  return estimateRequestTokens(meter, messages, run.toolDefinitions) > limit;
}

/** The next place after `from`, before `end`, where a request may start (a user or assistant message), or null. */
function nextStart(messages: readonly Message[], from: number, end: number): number | null {
  // Leave out about a quarter of what is left each time, so a long conversation fits in a few tries.
  const target = from + Math.max(1, Math.floor((end - from) / 4));
  for (let i = target; i < end; i++) if (messages[i]!.role === "user" || messages[i]!.role === "assistant") return i;
  return null;
}

export async function compactNow(messages: Message[], run: CompactRun, signal: AbortSignal, meter: Meter | null, step: number, asked?: AskedCompaction): Promise<CompactionOutcome> {
  const focus = asked?.focus;
  const { ref, emit, compaction } = run;
  const fail = (reason: string, extra: Partial<CompactionOutcome> = {}): CompactionOutcome => {
    compaction.state.failures++;
    if (compaction.state.failures >= MAX_COMPACTION_FAILURES) compaction.state.stopped = true;
    emit({ ...ref, type: "compaction_failed", reason, stopped: compaction.state.stopped });
    return { meter, compacted: false, requested: false, ...extra };
  };
  const tokensBefore = estimateInputTokens(meter, messages);
  let keep = tailTokens(compaction.compactAt, compaction.window);
  const cut = tailStart(messages, keep);
  // Nothing before the tail worth compacting: not a failure, there is simply nothing to do yet.
  const spanTokens = cut === null ? 0 : messages.slice(1, cut).reduce((n, m) => n + estimateTokens(messageJson(m)), 0);
  if (cut === null || spanTokens < (asked?.minSpanTokens ?? 0)) return { meter, compacted: false, requested: false, tooSmall: tokensBefore };
  if (run.hooks) {
    await run.hooks.preCompact(asked ? "manual" : "auto", focus ?? "", signal);
    if (signal.aborted) return { meter, compacted: false, requested: false };
  }
  // The conversation exactly as the last request sent it, plus the instruction: a cache hit on all of
  // it. When that is itself too long, its oldest messages are left out until it fits, all but the
  // user's instructions, which stay as one block.
  let from = 1;
  let turn;
  for (;;) {
    const block = from > 1 ? instructionsBlock(messages.slice(1, from)) : null;
    const asked = [messages[0]!, ...(block ? [block] : []), ...messages.slice(from), { role: "user" as const, content: compactionInstruction(focus) }];
    const answer = await askInBand(run, asked, signal, step);
    if (answer.ok) {
      turn = answer.turn;
      break;
    }
    if (signal.aborted) return { meter, compacted: false, requested: true };
    const refused = answer.error instanceof ModelError && answer.error.kind === "context";
    // The window the refusal names bounds the tail kept, so the compacted view fits it.
    if (refused) compaction.window = (answer.error as ModelError).window ?? compaction.window;
    keep = tailTokens(compaction.compactAt, compaction.window);
    const next = refused ? nextStart(messages, from, messages.length) : null;
    if (next === null) return fail(`the summary request failed: ${answer.message}`, { requested: true });
    from = next;
  }
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
