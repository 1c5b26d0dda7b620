import { describe, expect, it } from "vitest";
import { isRetryable, MAX_ATTEMPTS, parseRetryAfter, retryDelay } from "../../src/model/retry.js";

describe("retry policy", () => {
  it.each([429, 500, 502, 503, 504])("retries HTTP %i", (status) => {
    expect(isRetryable({ kind: "status", status })).toBe(true);
  });
  it.each([400, 401, 402, 403, 404, 422])("never retries HTTP %i", (status) => {
    expect(isRetryable({ kind: "status", status })).toBe(false);
  });
  it("retries connection errors and insufficient_system_resource, not dropped streams", () => {
    expect(isRetryable({ kind: "connection" })).toBe(true);
    expect(isRetryable({ kind: "insufficient_system_resource", answerStarted: false })).toBe(true);
    // The user has seen part of an answer: a retry would show a second, different one after it.
    expect(isRetryable({ kind: "insufficient_system_resource", answerStarted: true })).toBe(false);
    expect(isRetryable({ kind: "dropped" })).toBe(false);
  });
  it("retries a silent stream only if no answer had started", () => {
    expect(isRetryable({ kind: "idle", answerStarted: false })).toBe(true);
    expect(isRetryable({ kind: "idle", answerStarted: true })).toBe(false);
  });
  it("backs off exponentially with jitter within ±25%", () => {
    const low = () => 0;
    const high = () => 0.999999;
    expect(retryDelay({ kind: "connection" }, 1, 1000, low)).toBe(750);
    expect(retryDelay({ kind: "connection" }, 2, 1000, low)).toBe(1500);
    expect(retryDelay({ kind: "connection" }, 3, 1000, high)).toBe(5000);
  });
  it(`gives up after ${MAX_ATTEMPTS} attempts`, () => {
    expect(retryDelay({ kind: "status", status: 503 }, MAX_ATTEMPTS - 1, 10)).not.toBeNull();
    expect(retryDelay({ kind: "status", status: 503 }, MAX_ATTEMPTS, 10)).toBeNull();
  });
  it("honours Retry-After in seconds, as a date, and retry-after-ms", () => {
    expect(retryDelay({ kind: "status", status: 429, retryAfter: "3" }, 1, 1000)).toBe(3000);
    expect(retryDelay({ kind: "status", status: 429, retryAfterMs: "250", retryAfter: "3" }, 1, 1000)).toBe(250);
    expect(parseRetryAfter(null, new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter(null, "soon")).toBeNull();
  });
});
