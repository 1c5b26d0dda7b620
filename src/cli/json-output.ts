// `--json`: one JSON object per instruction on stdout (design §1), built from the event stream.
import type { AgentEvent } from "../agent/events.js";
import { instructionUsage } from "../agent/instruction-usage.js";
import { contextEventOf, type ContextEvent } from "../agent/context-event.js";

export function createJsonOutput(write: (line: string) => void, sessionId: () => string): (event: AgentEvent) => void {
  const usage = instructionUsage();
  let context: ContextEvent[] = [];
  return (event) => {
    usage.observe(event);
    const change = contextEventOf(event);
    if (change) context.push(change);
    if (event.type !== "turn_end" || event.agent !== "parent") return;
    const object = {
      session_id: sessionId(),
      answer: event.answer,
      exit_reason: event.exitReason,
      ...(event.error ? { error: event.error } : {}),
      usage: usage.totals(),
      // Folds and compactions during the instruction, when there were any.
      ...(context.length > 0 ? { context } : {}),
    };
    context = [];
    write(JSON.stringify(object) + "\n");
  };
}
