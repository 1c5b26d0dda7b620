// `--json`: one JSON object per instruction on stdout, built from the event stream. Its
// `usage` is the usage ledger's: the instruction's totals and cost, `by_agent`, and the answers hel
// mended (`repairs`); `context` lists the folds and compactions of the instruction, when there were any;
// `structured_output` is the answer's value when --json-schema shaped it and it fit. The shape below
// is a contract (test/contracts/json-output.txt): add fields, never rename them.
import { ContextEventSchema, contextEventOf, type ContextEvent } from "../../agent/context/context-event.js";
import { EXIT_REASONS, type AgentEvent } from "../../agent/events.js";
import { SpendSchema } from "../../agent/usage.js";
import { byAgent, type UsageLedger } from "../../agent/usage-ledger.js";
import { AgentSpendSchema } from "../../record/schema.js";
import { z } from "../../zod.js";

export const JsonOutputSchema = z.object({
  session_id: z.string(),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  error: z.string().optional(),
  structured_output: z.unknown().optional(),
  usage: SpendSchema.extend({ by_agent: z.array(AgentSpendSchema), repairs: z.number().int().nonnegative() }),
  context: z.array(ContextEventSchema).optional(),
});

export function createJsonOutput(write: (line: string) => void, sessionId: () => string, ledger: UsageLedger): (event: AgentEvent) => void {
  let context: ContextEvent[] = [];
  return (event) => {
    const change = contextEventOf(event);
    if (change) context.push(change);
    if (event.type !== "turn_end" || event.agent !== "parent") return;
    const report = ledger.instruction();
    const object: z.infer<typeof JsonOutputSchema> = {
      session_id: sessionId(),
      answer: event.answer,
      exit_reason: event.exitReason,
      ...(event.error ? { error: event.error } : {}),
      ...("structured" in event ? { structured_output: event.structured } : {}),
      usage: { ...report.total, by_agent: byAgent(report), repairs: report.repairs },
      ...(context.length > 0 ? { context } : {}),
    };
    context = [];
    write(JSON.stringify(object) + "\n");
  };
}
