// The usage of one instruction, for the readers that report it (the terminal, `--json`).
import type { AgentEvent } from "./events.js";
import { addUsage, emptyTotals, type UsageTotals } from "./usage.js";

/**
 * Sums the usage of every request an instruction made, its children's included, by reading the
 * event stream: it restarts at each parent turn_start.
 */
export function instructionUsage(): { observe(event: AgentEvent): void; totals(): UsageTotals } {
  let totals = emptyTotals();
  return {
    observe(event) {
      if (event.type === "turn_start" && event.agent === "parent") totals = emptyTotals();
      if (event.type === "response" && event.usage) totals = addUsage(totals, event.usage);
    },
    totals: () => totals,
  };
}
