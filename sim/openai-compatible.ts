// What a server that speaks the OpenAI wire format but is not DeepSeek answers differently, for the
// simulator's `openai-compatible` mode (server.ts): its usage object, and the context-overflow error
// bodies of llama.cpp and vLLM, exported so tests can script them as a status fault's body too.
// The texts are copied as those servers write them; only the numbers vary.
import type { Usage } from "../src/wire/messages.js";

/** Whose context-overflow error the mode answers with. */
export type OverflowShape = "llama.cpp" | "vllm";

/** llama.cpp's server: HTTP 400, an `error` object with its own type and the two counts. */
export function llamaCppOverflowBody(
  nPromptTokens: number,
  nCtx: number,
): {
  error: { code: 400; message: string; type: "exceed_context_size_error"; n_prompt_tokens: number; n_ctx: number };
} {
  return {
    error: {
      code: 400,
      message: "the request exceeds the available context size, try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: nPromptTokens,
      n_ctx: nCtx,
    },
  };
}

/** vLLM's OpenAI server: HTTP 400, a flat error object whose message names the window. */
export function vllmOverflowBody(window: number, promptTokens: number, completionTokens: number): { object: "error"; message: string; type: "BadRequestError"; param: null; code: 400 } {
  return {
    object: "error",
    message:
      `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + completionTokens} tokens ` +
      `(${promptTokens} in the messages, ${completionTokens} in the completion). Please reduce the length of the messages or completion.`,
    type: "BadRequestError",
    param: null,
    code: 400,
  };
}

/** Ready-made bodies for a 32K-token model asked for more, e.g. `{ fault: { kind: "status", status: 400, body: LLAMA_CPP_OVERFLOW } }`. */
export const LLAMA_CPP_OVERFLOW = llamaCppOverflowBody(40_000, 32_768);
export const VLLM_OVERFLOW = vllmOverflowBody(32_768, 39_000, 1_000);

/** The overflow body of `shape` for a prompt (and the completion it asked room for) that does not fit `window`. */
export function overflowBody(shape: OverflowShape, window: number, promptTokens: number, completionTokens: number): object {
  return shape === "llama.cpp" ? llamaCppOverflowBody(promptTokens, window) : vllmOverflowBody(window, promptTokens, completionTokens);
}

/**
 * Whether the request overflows as `shape`'s server decides it: llama.cpp looks at the prompt alone;
 * vLLM adds max_tokens when the request sets it (without it, the completion gets what is left).
 */
export function overflows(shape: OverflowShape, window: number, promptTokens: number, maxTokens: number | undefined): boolean {
  if (shape === "llama.cpp") return promptTokens >= window;
  return promptTokens + (maxTokens ?? 0) > window;
}

/** The usage such a server reports: OpenAI's fields, cached tokens in prompt_tokens_details, no DeepSeek cache fields. */
export function openAiUsage(u: Usage): object {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    prompt_tokens_details: { cached_tokens: u.prompt_cache_hit_tokens },
    completion_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
  };
}
