// Turns a SimReply into the turn the model actually emits under the request's settings. Contract:
// reasoning only in thinking mode (generated when the reply has none), reasoning then content then tool
// calls all count against max_tokens, and a turn that does not fit is cut at a token boundary and ends
// with "length" (a tool call whose arguments do not fit is sent cut mid-arguments, as DeepSeek cuts it;
// one whose name does not fit is dropped). A reply with `markup` has its calls written as DSML text
// (markup.ts) instead. Also: call ids shaped like DeepSeek's, and the deterministic splitting of text
// into stream deltas.
import { randomBytes } from "node:crypto";
import { countSegments, outputSegments, type Segment } from "./template.js";
import { markupText } from "./markup.js";
import { countTokens, tokenEnds, truncateToTokens } from "./tokens.js";
import type { SimReply } from "./types.js";

export interface PlayedCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Turn {
  /** null when thinking is off. */
  reasoning: string | null;
  content: string;
  toolCalls: PlayedCall[];
  finishReason: string;
  reasoningTokens: number;
  completionTokens: number;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `call_<2-digit index>_<24 alnum>`, as DeepSeek's ids look. */
export function callId(index: number): string {
  const bytes = randomBytes(24);
  let tail = "";
  for (const b of bytes) tail += ALNUM[b % ALNUM.length];
  return `call_${String(index).padStart(2, "0")}_${tail}`;
}

function generatedReasoning(reply: SimReply): string {
  const calls = reply.tool_calls ?? [];
  return calls.length > 0 ? `Let me work out the next step. I will call ${calls.map((c) => c.name).join(", ")} and look at the result.` : "Let me check what I have so far. I have enough to answer now.";
}

/** Tokens a tool call costs in the output: its markers, name and arguments, as the template serializes it. */
function callTokens(call: { name: string; arguments: string }): number {
  const segs: Segment[] = [
    { text: "<call>", special: true },
    { text: call.name, special: false },
    { text: "<sep>", special: true },
    { text: call.arguments, special: false },
    { text: "</call>", special: true },
  ];
  return countSegments(segs);
}

/** The reply as the model writes it when it puts its calls into text: no calls, the markup in their place. */
function asMarkup(reply: SimReply): SimReply {
  if (!reply.markup) return reply;
  const text = markupText(reply.tool_calls ?? [], reply.markup);
  if (reply.markup.in === "reasoning") return { reasoning: text, content: "", finish_reason: "stop" };
  return { ...(reply.reasoning ? { reasoning: reply.reasoning } : {}), content: reply.content ? `${reply.content}\n\n${text}` : text, finish_reason: "stop" };
}

export function playReply(scripted: SimReply, opts: { thinking: boolean; maxTokens: number }): Turn {
  const reply = asMarkup(scripted);
  let budget = opts.maxTokens;
  let truncated = false;

  let reasoning: string | null = null;
  let reasoningTokens = 0;
  if (opts.thinking) {
    reasoning = reply.reasoning ?? generatedReasoning(reply);
    reasoningTokens = countTokens(reasoning);
    if (reasoningTokens > budget) {
      reasoning = truncateToTokens(reasoning, budget);
      reasoningTokens = budget;
      truncated = true;
    }
    budget -= reasoningTokens;
  }

  let content = "";
  let contentTokens = 0;
  if (!truncated && reply.content) {
    contentTokens = countTokens(reply.content);
    if (contentTokens > budget) {
      content = truncateToTokens(reply.content, budget);
      contentTokens = budget;
      truncated = true;
    } else content = reply.content;
    budget -= contentTokens;
  }

  const toolCalls: PlayedCall[] = [];
  let callTokenSum = 0;
  const wanted = reply.tool_calls ?? [];
  for (let i = 0; i < wanted.length && !truncated; i++) {
    const c = wanted[i]!;
    const cost = callTokens(c);
    if (cost > budget) {
      truncated = true;
      // What is left after the markers and the name goes to the arguments, which end where it runs out.
      const room = budget - callTokens({ name: c.name, arguments: "" });
      if (room > 0) {
        callTokenSum += budget;
        toolCalls.push({ id: c.id ?? callId(i), name: c.name, arguments: truncateToTokens(c.arguments, room) });
      }
      break;
    }
    budget -= cost;
    callTokenSum += cost;
    toolCalls.push({ id: c.id ?? callId(i), name: c.name, arguments: c.arguments });
  }

  const finishReason = truncated ? "length" : (reply.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"));
  return {
    reasoning,
    content,
    toolCalls,
    finishReason,
    reasoningTokens,
    completionTokens: reasoningTokens + contentTokens + callTokenSum,
  };
}

/** The output the cache appends to the prompt for this turn. */
export function turnSegments(turn: Turn): Segment[] {
  return outputSegments({
    content: turn.content,
    reasoning_content: turn.reasoning,
    tool_calls: turn.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })),
  });
}

/** Splits text into deltas of two tokens each, so clients must join them. */
export function textDeltas(text: string): string[] {
  const ends = tokenEnds(text);
  const out: string[] = [];
  let start = 0;
  for (let k = 1; k < ends.length; k += 2) {
    out.push(text.slice(start, ends[k]));
    start = ends[k]!;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

const ARG_CUTS = [5, 1, 9, 3, 14, 2, 7, 4] as const;

/** Splits tool-call arguments at arbitrary points (inside strings, escapes, numbers), as DeepSeek does. */
export function argumentFragments(args: string): string[] {
  const out: string[] = [];
  let i = 0;
  let m = 0;
  while (i < args.length) {
    let end = i + ARG_CUTS[m++ % ARG_CUTS.length]!;
    // Never split a surrogate pair: a fragment must be valid UTF-8 on the wire.
    const c = args.charCodeAt(end);
    if (c >= 0xdc00 && c <= 0xdfff) end++;
    out.push(args.slice(i, end));
    i = end;
  }
  return out;
}
