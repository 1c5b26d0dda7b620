// The one stream of events the agent loop emits. The terminal renderer, `--json` output, the run
// records and the session saver all read this stream; nothing else reports what the loop did.
import type { FileEdit } from "../tools/file-edit.js";
import type { ChatRequest, FinishReason, Usage } from "../wire/messages.js";
import type { UsageTotals } from "./usage.js";

export type AgentRole = "parent" | "child";
export const EXIT_REASONS = ["completed", "max_steps", "length", "error", "aborted"] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** Which agent an event comes from: the parent, or the child of delegation number n. */
export interface AgentRef {
  agent: AgentRole;
  delegation?: number;
}

export type AgentEvent = AgentRef &
  (
    | { type: "turn_start"; instruction: string }
    | { type: "request"; step: number; body: ChatRequest; attempt: number }
    | { type: "retry"; attempt: number; delayMs: number; reason: string; status: number }
    | { type: "reasoning_delta"; text: string }
    | { type: "text_delta"; text: string }
    | {
        type: "response";
        step: number;
        status: number;
        usage: Usage | undefined;
        finishReason: FinishReason | null;
        durationMs: number;
        error?: string;
      }
    | { type: "tool_start"; callId: string; name: string; arguments: string }
    | { type: "tool_end"; callId: string; name: string; isError: boolean; result: string; edit?: FileEdit }
    | { type: "delegation_start"; number: number; mode: string; task: string }
    | {
        type: "delegation_end";
        number: number;
        mode: string;
        task: string;
        answer: string | null;
        exitReason: ExitReason;
        toolCalls: { name: string; arguments: string }[];
        usage: UsageTotals;
      }
    | {
        type: "turn_end";
        answer: string | null;
        exitReason: ExitReason;
        error?: string;
        usage: UsageTotals;
        /** The conversation's size in input tokens: measured by the last request, estimated since. */
        contextTokens: number;
      }
  );

export type EventSink = (event: AgentEvent) => void;
