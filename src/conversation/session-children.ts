// The children of a conversation's session: every child, whatever started it, counts in one sequence
// that goes on after a resume, and its transcript is saved with what it used and cost, as the usage
// ledger totalled it.
import { createChildren, type Children } from "../agent/children/children.js";
import type { EventSink } from "../agent/events.js";
import type { UsageLedger } from "../agent/usage-ledger.js";
import { totalsOf } from "../agent/usage.js";
import type { ActiveSession } from "../session/session.js";
import type { RunOptions } from "../settings/run-options.js";

export function sessionChildren(options: RunOptions, session: ActiveSession, ledger: UsageLedger, emit: EventSink): Children {
  return createChildren({
    emit,
    budget: { maxSteps: options.childMaxSteps, maxTokens: options.childMaxTokens },
    firstNumber: session.childCount,
    childModel: options.childModel,
    isolation: options.childIsolation,
    saveTranscript: (transcript) => {
      const spent = ledger.run().delegations.find((d) => d.delegation === transcript.number);
      return session.saveChild({ ...transcript, ...(spent ? { usage: totalsOf(spent) } : {}), cost_usd: spent?.cost_usd ?? null });
    },
  });
}
