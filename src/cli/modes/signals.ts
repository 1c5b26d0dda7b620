// Runs one instruction with Ctrl-C and SIGTERM aborting it instead of killing the process, so the
// conversation is left valid, saved and the lease released. `stopped` names the signal that came —
// possibly after the answer, while it was being saved — and the run must end instead of reading
// more instructions. The interactive prompt handles Ctrl-C itself.
import type { TurnOutcome } from "../../agent/loop/loop.js";

export async function withSignals<T extends TurnOutcome>(run: (signal: AbortSignal) => Promise<T>): Promise<{ outcome: T; stopped: NodeJS.Signals | null }> {
  const controller = new AbortController();
  let stopped: NodeJS.Signals | null = null;
  const on = (signal: NodeJS.Signals) => () => {
    stopped ??= signal;
    controller.abort();
  };
  const onInt = on("SIGINT");
  const onTerm = on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return { outcome: await run(controller.signal), stopped };
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
