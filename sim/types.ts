// The simulator's public types: what a test scripts (replies and faults), what a policy is, and the
// handle startSimulator returns. Other parts of hel code against these names; keep them stable.
//
// Faults of the transport are SimFaults (below). Faults of the model, as DeepSeek really answers, are
// replies:
//   tool calls as text    `markup` on a reply: its tool_calls written as DSML markup after the content,
//                         or as the whole reasoning with no content (SimMarkup picks the block's name,
//                         the bar, parameter elements or one JSON object, and `<｜DSML｜ invoke`)
//   broken arguments      a tool call whose `arguments` is not JSON, e.g. "{": sent as it is
//   a call cut off        a reply whose call does not fit max_tokens: its arguments are cut where the
//                         budget ends, and the turn finishes with "length"
//   an empty answer       `{ content: null }` or `{ content: "" }`: no text, no calls, "stop"
//   a storm               the same tool call scripted step after step
// And what DeepSeek refuses in return: a tool call sent back with arguments that are not JSON
// (`enforceArgumentsJson`), a tool-call turn without its reasoning (`enforceReasoningContent`).
import type { ChatRequest, Usage } from "../src/wire/messages.js";
import type { OverflowShape } from "./openai-compatible.js";

/** One model turn to play. */
export interface SimReply {
  content?: string | null;
  /** Played as reasoning_content when thinking is on; a short one is generated when absent. */
  reasoning?: string;
  /** `arguments` is the raw JSON text, sent as is (it may be malformed on purpose). */
  tool_calls?: { name: string; arguments: string; id?: string }[];
  /** Default: "tool_calls" when there are tool calls, else "stop"; "length" when max_tokens cuts the turn. */
  finish_reason?: "stop" | "length" | "tool_calls" | "insufficient_system_resource" | "content_filter";
  /**
   * A fault of the model: `tool_calls` are written as DSML markup text (after `content`, or as the
   * whole reasoning) instead of being sent as tool calls, and the turn finishes with "stop".
   */
  markup?: SimMarkup;
  /**
   * The usage the answer carries, as other OpenAI-compatible servers send it: "omitted", none at all;
   * "openai", without DeepSeek's prompt_cache_hit/miss_tokens (the cache only in prompt_tokens_details).
   * The request's record keeps the full usage either way.
   */
  usage?: "omitted" | "openai";
}

/** How tool calls written as text are spelled (markup.ts): the spellings of successive model versions. */
export interface SimMarkup {
  /** The block's name; default function_calls. */
  block?: "function_calls" | "tool_calls" | "calls";
  /** The bar inside tags: the full-width U+FF5C (default) or an ASCII `|`. */
  bar?: "full-width" | "ascii";
  /** Parameters as `parameter` elements (default) or as one JSON object. */
  params?: "elements" | "json";
  /** `<｜DSML｜ invoke …>`, with a space, as some builds write it. */
  spacedInvoke?: boolean;
  /** Where the markup goes: after the content (default), or into reasoning_content with no content. */
  in?: "content" | "reasoning";
}

export type SimFault =
  /**
   * An error response, e.g. 429/500/502/503/504/400/401/402/422; `body` replaces DeepSeek's error body.
   * `echoHeaders`: its message quotes the request's headers, Authorization included, as some proxies do.
   */
  | { kind: "status"; status: number; body?: unknown; retryAfter?: string; echoHeaders?: boolean }
  /** The stream starts (200 + `afterChunks` data chunks), then the socket is destroyed: no [DONE]. */
  | { kind: "drop"; afterChunks: number }
  /** 200 headers, then nothing at all for `ms`; the answer follows if the client is still there. */
  | { kind: "stall"; ms: number }
  /** `: keep-alive` comments (streaming) or blank lines (non-streaming) before the answer. */
  | { kind: "keepalive"; count: number; everyMs: number }
  /** Wait `ms` before sending anything. */
  | { kind: "delay"; ms: number }
  /** Destroy the socket before any response: the client sees a connection error. */
  | { kind: "reset" };

/** One scripted request: a reply, one fault, or faults applied in order followed by an optional reply. */
export type SimStep = SimReply | { fault: SimFault } | { faults: SimFault[]; reply?: SimReply };

/**
 * Decides the answer to a request the script leaves unanswered. It is asked when the request arrives,
 * so it may answer with faults too (a delay, an error for one agent's request), like a script step.
 */
export type Policy = (req: ChatRequest, ctx: { requestIndex: number }) => SimStep;

export type PolicyName = "demo" | "h11" | "h9" | "echo" | "episode" | "fold" | "build-loop";

export interface SimOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Prefix-cache block in tokens, default 64. */
  blockSize?: number;
  /** Answers when the script is empty; default "echo". */
  policy?: Policy | PolicyName;
  /** Consumed in order, one step per chat request that passes validation. */
  script?: SimStep[];
  /** 400 for a tool-call assistant message without reasoning_content in thinking mode; default true. */
  enforceReasoningContent?: boolean;
  /** 400 for a tool call sent back whose arguments are not JSON, as DeepSeek refuses it; default true. */
  enforceArgumentsJson?: boolean;
  /** If set, other keys get 401; default: any non-empty Bearer key is accepted. */
  apiKeys?: string[];
  /** Default 1048576. */
  contextWindow?: number;
  /**
   * `deepseek` (default): DeepSeek's API. `openai-compatible`: a server that speaks the OpenAI wire format
   * but is not DeepSeek (openai-compatible.ts): usage without DeepSeek's cache fields (cached tokens in
   * `prompt_tokens_details`), any model name, no key needed unless `apiKeys` is set, tool-call turns sent
   * back without reasoning accepted, and context overflow answered in `overflow`'s shape.
   */
  mode?: "deepseek" | "openai-compatible";
  /** Responses carry no `usage` at all, not even in the stream's last chunk, as some servers answer. */
  omitUsage?: boolean;
  /** The response field reasoning is played in: DeepSeek's `reasoning_content` (default) or `reasoning`. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** openai-compatible only: whose context-overflow error to answer with; default vllm. */
  overflow?: OverflowShape;
}

export interface SimRequestRecord {
  /** The parsed JSON body exactly as received (the raw text when it was not JSON). */
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The HTTP status sent; 0 when the connection was reset before any response. */
  status: number;
  /** Chat requests that had arrived and were not yet answered when this one arrived: >0 means they overlapped. */
  overlapping?: number;
  usage?: Usage;
}

export interface Simulator {
  /** Base URL, e.g. http://127.0.0.1:PORT; /chat/completions and /v1/chat/completions both work. */
  url: string;
  /** Every request received, in order of arrival. */
  requests: SimRequestRecord[];
  push(...steps: SimStep[]): void;
  close(): Promise<void>;
}
