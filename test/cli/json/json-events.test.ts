// --json-events names the named agent of a delegation (agent_name) and leaves a plain one as it was.
import { expect, it } from "vitest";
import { createJsonEvents, JsonEventSchema } from "../../../src/cli/json/json-events.js";
import { createUsageLedger } from "../../../src/agent/usage-ledger.js";
import { DEFAULT_PRICES } from "../../../src/model/prices.js";
import { emptyTotals } from "../../../src/agent/usage.js";

it("a delegation's start and end carry agent_name only when a named agent did it", () => {
  const lines: string[] = [];
  const emit = createJsonEvents((line) => lines.push(line), () => "s", createUsageLedger({ table: DEFAULT_PRICES, now: () => new Date(0) }));
  emit({ agent: "parent", type: "delegation_start", number: 1, kind: "delegate", mode: "task-only", agentName: "tester", task: "t" });
  emit({ agent: "parent", type: "delegation_end", number: 1, kind: "delegate", mode: "task-only", agentName: "tester", task: "t", answer: "a", exitReason: "completed", toolCalls: [], usage: emptyTotals() });
  emit({ agent: "parent", type: "delegation_start", number: 2, kind: "delegate", mode: "full", task: "u" });
  const events = lines.map((line) => JsonEventSchema.parse(JSON.parse(line)));
  expect(events.map((e) => ("agent_name" in e ? e.agent_name : null))).toEqual(["tester", "tester", null]);
  expect(JSON.parse(lines[2]!)).toEqual({ type: "delegation_start", agent: "parent", number: 2, kind: "delegate", mode: "full", task: "u" });
});
