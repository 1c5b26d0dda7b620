// The meter: the real input tokens of the last request and how many messages it sent, so the size of
// the next request can be told without a tokenizer — measured for the part already sent, estimated for
// the messages added since. Saved with the session; compaction decisions will read it.
import { z } from "../zod.js";
import type { Message, ToolDefinition } from "../wire/messages.js";
import { messageJson } from "../wire/serialize.js";

export const MeterSchema = z.object({
  /** How many messages the last request sent; messages after it are estimated, not measured. */
  message_count: z.number().int().nonnegative(),
  /** The real prompt_tokens DeepSeek reported for that request. */
  input_tokens: z.number().int().nonnegative(),
});
export type Meter = z.infer<typeof MeterSchema>;

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/** DeepSeek's rule of thumb: about 0.3 token per English character and 0.6 per Chinese character. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) * 0.3 + cjk * 0.6);
}

const PUNCTUATION = /[!-/:-@[-`{-~]/g;

/**
 * Tool definitions are JSON schemas: their quotes, colons and braces are nearly a token each, which the
 * prose rule of thumb undercounts by about a fifth.
 */
function estimateDefinitionTokens(tools: readonly ToolDefinition[]): number {
  if (tools.length === 0) return 0;
  const text = JSON.stringify(tools);
  return estimateTokens(text) + Math.ceil((text.match(PUNCTUATION)?.length ?? 0) * 0.35);
}

/** Input tokens the next request would carry: measured up to the meter, estimated after it. */
export function estimateInputTokens(meter: Meter | null, messages: readonly Message[]): number {
  const from = meter ? Math.min(meter.message_count, messages.length) : 0;
  let tokens = meter ? meter.input_tokens : 0;
  for (let i = from; i < messages.length; i++) tokens += estimateTokens(messageJson(messages[i]!));
  return tokens;
}

/**
 * Input tokens a whole request would carry, for --max-cost and compaction: without a meter (a turn's
 * first request, hel's own in-band ones) its tool list is estimated too, which a measured request
 * already counts.
 */
export function estimateRequestTokens(meter: Meter | null, messages: readonly Message[], tools: readonly ToolDefinition[]): number {
  return estimateInputTokens(meter, messages) + (meter ? 0 : estimateDefinitionTokens(tools));
}

/**
 * The meter for a view rewritten from `start` on (a fold, a compaction): what the last request
 * measured, less the estimate of the messages it sent from `start`, which are gone or changed.
 */
export function meterBefore(meter: Meter, sent: readonly Message[], start: number): Meter {
  if (start >= meter.message_count) return meter;
  let tokens = meter.input_tokens;
  for (let i = start; i < Math.min(meter.message_count, sent.length); i++) tokens -= estimateTokens(messageJson(sent[i]!));
  return { message_count: start, input_tokens: Math.max(0, tokens) };
}
