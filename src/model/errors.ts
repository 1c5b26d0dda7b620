// Turns a failed model request into one line for a person: what went wrong and what to do. DeepSeek's
// own API (the default provider, and the simulator that plays it) is named and its platform advised;
// another server is named by its host, with advice for that host, a local one's being whether it runs.
import { HelError } from "../errors.js";
import { hostLabel, isLoopback, type Provider } from "./host.js";
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

/** The error for an HTTP status the server answered with, after any retries; `body` is the server's error object. */
export function statusError(status: number, apiMessage: string, baseURL: string, attempts: number, settings: Settings = "flags", provider: Provider = "deepseek", body?: unknown): ModelError {
  const detail = apiMessage ? `: ${apiMessage}` : "";
  const tries = attempts > 1 ? ` after ${attempts} tries` : "";
  const overflow = contextOverflow(status, apiMessage, body);
  if (overflow) return new ModelError("context", `the conversation is longer than the model's context window (400${detail}) — start a new session, or lower --max-output-tokens`, status, overflow.window);
  if (provider !== "deepseek") return otherServerError(status, detail, baseURL, tries, settings);
  if (status === 401) return new ModelError("auth", `DeepSeek rejected the API key (401) — check DEEPSEEK_API_KEY and create a new key at platform.deepseek.com if needed`, status);
  if (status === 402) return new ModelError("balance", `the DeepSeek account is out of balance (402) — top up at platform.deepseek.com, then resume the session`, status);
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

/** The same statuses from a server that is not DeepSeek's: named by its host, with no advice about DeepSeek's platform. */
function otherServerError(status: number, detail: string, baseURL: string, tries: string, settings: Settings): ModelError {
  const host = hostLabel(baseURL);
  const local = isLoopback(baseURL);
  if (status === 401 || status === 403) return new ModelError("auth", `${host} rejected the API key (${status}${detail}) — export the key it expects as DEEPSEEK_API_KEY (hel sends that variable to --base-url)`, status);
  if (status === 402) return new ModelError("balance", `${host} says the account is out of credit (402${detail}) — top up with that provider, then resume the session`, status);
  if (status === 400 || status === 404 || status === 422)
    return new ModelError(
      "bad_request",
      `${host} refused the request (${status}${detail}) — ${settings === "commands" ? "check /model" : "check --model"} (a model ${host} serves); if it persists, rerun with HEL_DEBUG=1 and report it`,
      status,
    );
  if (status === 429) return new ModelError("rate", `${host} is rate-limiting this account (429)${tries} — wait a minute, then resume the session`, status);
  if (status >= 500)
    return new ModelError(
      "server",
      `the server at ${host} failed (${status}${detail})${tries} — ${local ? "see that server's own log (is its model loaded?)" : "try again in a few minutes, or resume the session later"}`,
      status,
    );
  return new ModelError("bad_request", `unexpected answer from ${baseURL} (${status}${detail}) — check --base-url / HEL_BASE_URL`, status);
}

export function connectionError(baseURL: string, cause: string, attempts: number, provider: Provider = "deepseek"): ModelError {
  const hint = provider !== "deepseek" && isLoopback(baseURL) ? `is the server at ${baseURL} running?` : "check --base-url / HEL_BASE_URL and the network";
  return new ModelError("connection", `cannot reach ${baseURL}${attempts > 1 ? ` after ${attempts} tries` : ""} (${cause}) — ${hint}`);
}

/** A turn the server could not finish for want of capacity (finish_reason insufficient_system_resource). */
export function capacityError(attempts: number, baseURL: string, provider: Provider = "deepseek"): ModelError {
  const who = provider === "deepseek" ? "DeepSeek" : hostLabel(baseURL);
  return new ModelError("server", `${who} ran out of capacity while answering (insufficient_system_resource${attempts > 1 ? `, ${attempts} tries` : ""}) — try again in a few minutes; the conversation is kept`);
}
