// When and how long to wait before retrying a failed model request. Pure: the client feeds it the
// failure and the attempt number, it answers with a delay or "do not retry".
//
// Retried: 429, 500, 502, 503, 504, connection errors, and — when no answer had reached the user
// yet — a stream that stayed silent and DeepSeek's `insufficient_system_resource` finish. Never
// retried: 400/401/402/422 (the same request would fail the same way) and anything after the answer
// started streaming (a retry would bill twice and could show the user two different answers).

export const MAX_ATTEMPTS = 4;
const CAP_MS = 30_000;
const RETRY_AFTER_CAP_MS = 60_000;
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export type Failure =
  | { kind: "status"; status: number; retryAfter?: string | null; retryAfterMs?: string | null }
  | { kind: "connection" }
  | { kind: "idle"; answerStarted: boolean }
  | { kind: "dropped" }
  | { kind: "insufficient_system_resource"; answerStarted: boolean };

export function isRetryable(failure: Failure): boolean {
  switch (failure.kind) {
    case "status":
      return RETRYABLE_STATUS.has(failure.status);
    case "connection":
      return true;
    case "idle":
    case "insufficient_system_resource":
      return !failure.answerStarted;
    case "dropped":
      return false;
  }
}

/** Milliseconds to wait before attempt `attempt + 1` (attempt counts from 1), or null for no retry. */
export function retryDelay(failure: Failure, attempt: number, baseMs: number, random: () => number = Math.random): number | null {
  if (attempt >= MAX_ATTEMPTS || !isRetryable(failure)) return null;
  if (failure.kind === "status") {
    const told = parseRetryAfter(failure.retryAfterMs, failure.retryAfter);
    if (told !== null) return Math.min(told, RETRY_AFTER_CAP_MS);
  }
  const exponential = Math.min(baseMs * 2 ** (attempt - 1), CAP_MS);
  // Jitter of up to ±25% keeps many clients that failed together from retrying together.
  return Math.round(exponential * (0.75 + random() * 0.5));
}

/** `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date. */
export function parseRetryAfter(ms: string | null | undefined, value: string | null | undefined, now = Date.now()): number | null {
  if (ms) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
