// `--json`: one JSON object per instruction on stdout (design §1), built from the event stream.
import type { AgentEvent } from "../agent/events.js";
import { instructionUsage } from "../agent/instruction-usage.js";

export function createJsonOutput(write: (line: string) => void, sessionId: () => string): (event: AgentEvent) => void {
  const usage = instructionUsage();
  return (event) => {
    usage.observe(event);
    if (event.type !== "turn_end" || event.agent !== "parent") return;
    const object = {
      session_id: sessionId(),
      answer: event.answer,
      exit_reason: event.exitReason,
      ...(event.error ? { error: event.error } : {}),
      usage: usage.totals(),
    };
    write(JSON.stringify(object) + "\n");
  };
}
