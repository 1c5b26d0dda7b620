// Waiting for a condition in tests: poll it until it holds, and fail with what was awaited once the
// deadline passes, instead of sleeping a fixed time that a loaded machine may not honour.
import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions {
  /** How long the condition may take before the wait fails. */
  timeoutMs?: number;
  /** Pause between checks. */
  everyMs?: number;
}

/** Resolves once `check` holds; rejects naming `what` (text, or a function for details known only then) at the deadline. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string | (() => string), options: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(options.everyMs ?? 10);
  }
}
