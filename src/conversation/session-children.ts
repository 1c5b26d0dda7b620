// The children of a conversation's session: every child, whatever started it, counts in one sequence
// that goes on after a resume, and its transcript is saved with what it used and cost, as the usage
// ledger totalled it. Where the project is a git repository, a delegation may run in a worktree of its own.
import { createChildren, type Children } from "../agent/children/children.js";
import type { EventSink } from "../agent/events.js";
import type { UsageLedger } from "../agent/usage-ledger.js";
import { totalsOf } from "../agent/usage.js";
import type { ActiveSession } from "../session/session.js";
import type { RunOptions } from "../settings/run-options.js";
import { childWorkspaces } from "./child-workspaces.js";

export function sessionChildren(options: RunOptions, session: ActiveSession, ledger: UsageLedger, emit: EventSink, projectDir: string): Children {
  const workspaces = childWorkspaces(projectDir);
  return createChildren({
    ...(workspaces ? { workspaces } : {}),
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
