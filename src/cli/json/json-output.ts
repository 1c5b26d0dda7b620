// `--json`: one JSON object per instruction on stdout, built from the event stream. Its
// `usage` is the usage ledger's: the instruction's totals and cost, `by_agent`, and the answers hel
// mended (`repairs`); `context` lists the folds and compactions of the instruction, when there were any.
import { contextEventOf, type ContextEvent } from "../../agent/context/context-event.js";
import type { AgentEvent } from "../../agent/events.js";
import { byAgent, type UsageLedger } from "../../agent/usage-ledger.js";

export function createJsonOutput(write: (line: string) => void, sessionId: () => string, ledger: UsageLedger): (event: AgentEvent) => void {
  let context: ContextEvent[] = [];
  return (event) => {
    const change = contextEventOf(event);
    if (change) context.push(change);
    if (event.type !== "turn_end" || event.agent !== "parent") return;
    const report = ledger.instruction();
    const object = {
      session_id: sessionId(),
      answer: event.answer,
      exit_reason: event.exitReason,
      ...(event.error ? { error: event.error } : {}),
      usage: { ...report.total, by_agent: byAgent(report), repairs: report.repairs },
      ...(context.length > 0 ? { context } : {}),
    };
    context = [];
    write(JSON.stringify(object) + "\n");
  };
}
