// Whether a refused request was refused for its length, whichever server answered, and the window the
// refusal names. DeepSeek and vLLM say "maximum context length is N tokens", SGLang "longer than the
// model's context length (N tokens)", llama.cpp answers type exceed_context_size_error with n_ctx,
// OpenAI-style hosts code context_length_exceeded. A refusal that names its window lets compaction fit
// the server's real window rather than the one assumed for the model.

/** A refusal for length, and the window it named, when it named one. */
export interface ContextOverflow {
  window?: number;
}

const TOO_LONG = /maximum context length|context length|too many tokens|reduce the length|exceeds the available context size/i;
const WINDOW_IN_TEXT = [/maximum context length (?:is|of) (\d+)/i, /model's context length \((\d+) tokens?\)/i];

/** `body` is the error object the server sent (the `error` member of its JSON), when there was one. */
export function contextOverflow(status: number, message: string, body?: unknown): ContextOverflow | null {
  if (status !== 400) return null;
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const named = fields.type === "exceed_context_size_error" || fields.code === "context_length_exceeded";
  if (!named && !TOO_LONG.test(message)) return null;
  const window = windowNamed(message, fields.n_ctx);
  return window === undefined ? {} : { window };
}

function windowNamed(message: string, nCtx: unknown): number | undefined {
  if (typeof nCtx === "number" && Number.isInteger(nCtx) && nCtx > 0) return nCtx;
  for (const pattern of WINDOW_IN_TEXT) {
    const match = pattern.exec(message);
    if (match) return Number(match[1]);
  }
  return undefined;
}
