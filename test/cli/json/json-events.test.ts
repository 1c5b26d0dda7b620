// Every `--json-events` type, and every field of it, is in the event table of docs/usage.md: the table
// is read from there and the types from the one schema the events are written with. A delegation's
// events name the named agent (agent_name), and a plain one's stay as they were.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createJsonEvents, JsonEventSchema } from "../../../src/cli/json/json-events.js";
import { createUsageLedger } from "../../../src/agent/usage-ledger.js";
import { DEFAULT_PRICES } from "../../../src/model/prices.js";
import { emptyTotals } from "../../../src/agent/usage.js";
/** The event table of docs/usage.md: each row's type and the rest of its text. */
async function documentedEvents(): Promise<Map<string, string>> {
  const readme = await readFile(new URL("../../../docs/usage.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## `--json-events`"));
  const rows = new Map<string, string>();
  for (const line of section.split("\n").slice(1)) {
    if (line.startsWith("#")) break;
    const row = /^\| `([a-z_]+)` \| (.*) \|$/.exec(line);
    if (row && row[1] !== "type") rows.set(row[1]!, row[2]!);
  }
  return rows;
}

/** Fields every event has, documented once above the table. */
const COMMON = new Set(["type", "agent", "delegation"]);

describe("the --json-events table of docs/usage.md", () => {
  it("documents every event type and each of its fields", async () => {
    const rows = await documentedEvents();
    const declared = JsonEventSchema.options.map((option) => ({ type: String(option.shape.type.value), fields: Object.keys(option.shape).filter((key) => !COMMON.has(key)) }));
    expect(declared.map((d) => d.type)).toContain("message");
    const undocumented = declared.flatMap(({ type, fields }) => {
      const row = rows.get(type);
      if (row === undefined) return [type];
      return fields.filter((field) => !row.includes(`\`${field}\``)).map((field) => `${type}.${field}`);
    });
    expect(undocumented).toEqual([]);
    // And the table names no type hel does not emit.
    expect([...rows.keys()].filter((type) => !declared.some((d) => d.type === type))).toEqual([]);
  });
});

it("a delegation's start and end carry agent_name only when a named agent did it", () => {
  const lines: string[] = [];
  const emit = createJsonEvents(
    (line) => lines.push(line),
    () => "s",
    createUsageLedger({ table: DEFAULT_PRICES, now: () => new Date(0) }),
  );
  emit({ agent: "parent", type: "delegation_start", number: 1, kind: "delegate", mode: "task-only", agentName: "tester", task: "t" });
  emit({ agent: "parent", type: "delegation_end", number: 1, kind: "delegate", mode: "task-only", agentName: "tester", task: "t", answer: "a", exitReason: "completed", toolCalls: [], usage: emptyTotals() });
  emit({ agent: "parent", type: "delegation_start", number: 2, kind: "delegate", mode: "full", task: "u" });
  const events = lines.map((line) => JsonEventSchema.parse(JSON.parse(line)));
  expect(events.map((e) => ("agent_name" in e ? e.agent_name : null))).toEqual(["tester", "tester", null]);
  expect(JSON.parse(lines[2]!)).toEqual({ type: "delegation_start", agent: "parent", number: 2, kind: "delegate", mode: "full", task: "u" });
});
