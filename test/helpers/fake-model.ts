// An in-process ModelClient for testing the agent loop without HTTP. Each request is answered with the
// next scripted turn, reported as the real client reports one (the attempt, the reasoning and text as
// deltas, then the whole turn), or fails with the scripted error. Every request body is kept as the
// JSON the model would receive, taken when it was sent.
import type { AgentEvent } from "../../src/agent/events.js";
import type { ModelClient, ModelTurn } from "../../src/model/client.js";
import type { AssistantMessage, ChatRequest, FinishReason, Usage } from "../../src/wire/messages.js";

export type FakeTurn = { message: AssistantMessage; finishReason?: FinishReason; usage?: Usage } | { error: Error };

export interface FakeModel extends ModelClient {
  /** The body of every request, in order. */
  readonly bodies: ChatRequest[];
}

export function fakeModel(script: readonly FakeTurn[]): FakeModel {
  const bodies: ChatRequest[] = [];
  return {
    baseURL: "fake:",
    bodies,
    async complete(body, _signal, handlers = {}): Promise<ModelTurn> {
      bodies.push(JSON.parse(JSON.stringify(body)) as ChatRequest);
      handlers.onAttempt?.(1);
      const turn = script[bodies.length - 1];
      if (turn === undefined) throw new Error(`the fake model has no turn scripted for request ${bodies.length}`);
      if ("error" in turn) throw turn.error;
      const { message } = turn;
      if (message.reasoning_content) handlers.onReasoning?.(message.reasoning_content);
      if (message.content) handlers.onText?.(message.content);
      const finishReason = turn.finishReason ?? (message.tool_calls ? "tool_calls" : "stop");
      return { message, finishReason, usage: turn.usage, status: 200, durationMs: 0, attempts: 1 };
    },
    listModels: async () => ["fake"],
    warm: () => undefined,
    close: async () => undefined,
  };
}

/** A tool call as the model sends it. */
export const toolCall = (id: string, name: string, args: object) => ({ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } });

/** A usage object with the figures the loop sums. */
/** The event an agent's answered request makes, as the usage ledger reads it. */
export const responseEvent = (ref: { agent: "parent" | "child"; delegation?: number }, u: Usage | undefined): AgentEvent => ({
  ...ref,
  type: "response",
  step: 1,
  status: 200,
  usage: u,
  finishReason: "stop",
  durationMs: 1,
});

export const usage = (prompt: number, completion: number, hit: number): Usage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_cache_hit_tokens: hit,
  prompt_cache_miss_tokens: prompt - hit,
});
