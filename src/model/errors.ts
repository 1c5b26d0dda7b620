// Turns a failed model request into one line for a person: what went wrong and what to do.
import { HelError } from "../errors.js";
import { contextOverflow } from "./context-overflow.js";

export type ModelErrorKind = "auth" | "balance" | "context" | "bad_request" | "rate" | "server" | "connection" | "stream" | "aborted";

export class ModelError extends HelError {
  override name = "ModelError";
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
    /** For a refusal for length: the context window the server named, when it named one. */
    readonly window?: number,
  ) {
    super(message, 1);
  }
}

/** Where the user chooses the model and the rest: hel's flags, or the interactive prompt's commands. */
export type Settings = "flags" | "commands";

/** The error for an HTTP status DeepSeek answered with, after any retries; `body` is the server's error object. */
export function statusError(status: number, apiMessage: string, baseURL: string, attempts: number, settings: Settings = "flags", body?: unknown): ModelError {
  const detail = apiMessage ? `: ${apiMessage}` : "";
  const tries = attempts > 1 ? ` after ${attempts} tries` : "";
  if (status === 401) return new ModelError("auth", `DeepSeek rejected the API key (401) — check DEEPSEEK_API_KEY and create a new key at platform.deepseek.com if needed`, status);
  if (status === 402) return new ModelError("balance", `the DeepSeek account is out of balance (402) — top up at platform.deepseek.com, then resume the session`, status);
  const overflow = contextOverflow(status, apiMessage, body);
  if (overflow) return new ModelError("context", `the conversation is longer than the model's context window (400${detail}) — start a new session, or lower --max-output-tokens`, status, overflow.window);
  if (status === 400 || status === 422)
    return new ModelError(
      "bad_request",
      `DeepSeek refused the request (${status}${detail}) — ${settings === "commands" ? "check /model and /effort" : "check --model and the other flags"}; if it persists, rerun with HEL_DEBUG=1 and report it`,
      status,
    );
  if (status === 429) return new ModelError("rate", `DeepSeek is rate-limiting this account (429)${tries} — wait a minute, then resume the session`, status);
  if (status >= 500) return new ModelError("server", `DeepSeek's server failed (${status}${detail})${tries} — try again in a few minutes, or resume the session later`, status);
  return new ModelError("bad_request", `unexpected answer from ${baseURL} (${status}${detail}) — check --base-url / HEL_BASE_URL`, status);
}

export function connectionError(baseURL: string, cause: string, attempts: number): ModelError {
  return new ModelError("connection", `cannot reach ${baseURL}${attempts > 1 ? ` after ${attempts} tries` : ""} (${cause}) — check --base-url / HEL_BASE_URL and the network`);
}
