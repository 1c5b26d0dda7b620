// One in-band request of hel's own (a compaction summary, an auto-fold note): sent with the run's
// client, tool list and settings, so it extends the last request and the prompt cache serves it, and
// reported on the event stream like any request, and held to --max-cost like any. Never throws: a
// refusal comes back as its error.
import type { ModelClient, ModelTurn } from "../../model/client.js";
import { ModelError } from "../../model/errors.js";
import type { Message, ToolDefinition } from "../../wire/messages.js";
import type { AgentRef, EventSink } from "../events.js";
import { estimateRequestTokens } from "../meter.js";
import { estimatedUsage } from "../usage.js";
import { buildRequest, type RequestSettings } from "../request.js";
import type { SpendLimit } from "../spend-limit.js";

/** What an in-band request needs of the agent's run. */
export interface InBandRun {
  ref: AgentRef;
  emit: EventSink;
  client: ModelClient;
  toolDefinitions: readonly ToolDefinition[];
  request: RequestSettings;
  /** --max-cost, asked before the request as before any other (loop.ts's AgentSetup). */
  spendLimit?: SpendLimit;
}

export type InBandAnswer = { ok: true; turn: ModelTurn } | { ok: false; error: unknown; message: string };

export async function askInBand(run: InBandRun, messages: readonly Message[], signal: AbortSignal, step: number): Promise<InBandAnswer> {
  const { ref, emit } = run;
  const body = buildRequest(messages, run.toolDefinitions, run.request);
  const promptTokens = estimateRequestTokens(null, messages, run.toolDefinitions);
  const allowed = run.spendLimit?.({ agent: ref, promptTokens, model: body.model, maxTokens: body.max_tokens! });
  if (allowed && "refused" in allowed) return { ok: false, error: new Error(allowed.refused), message: allowed.refused };
  if (allowed) body.max_tokens = allowed.maxTokens;
  try {
    const turn = await run.client.complete(body, signal, {
      onAttempt: (attempt) => emit({ ...ref, type: "request", step, body, attempt }),
      onRetry: (info) => emit({ ...ref, type: "retry", ...info }),
    });
    // Counted with its tokens estimated when the server reported no usage, as the loop's requests are.
    const answered = turn.usage ?? estimatedUsage(promptTokens, turn.message);
    emit({ ...ref, type: "response", step, status: turn.status, usage: answered, finishReason: turn.finishReason, durationMs: turn.durationMs });
    return { ok: true, turn: { ...turn, usage: answered } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    emit({ ...ref, type: "response", step, status: error instanceof ModelError ? (error.status ?? 0) : 0, usage: undefined, finishReason: null, durationMs: 0, error: message });
    return { ok: false, error, message };
  }
}
