// Every `--json-events` type, and every field of it, is in the README's event table: the table is
// read from the README and the types from the one schema the events are written with.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { JsonEventSchema } from "../../../src/cli/json/json-events.js";

/** The README's event table: each row's type and the rest of its text. */
async function documentedEvents(): Promise<Map<string, string>> {
  const readme = await readFile(new URL("../../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("### `--json-events`"));
  const rows = new Map<string, string>();
  for (const line of section.split("\n").slice(1)) {
    if (line.startsWith("### ")) break;
    const row = /^\| `([a-z_]+)` \| (.*) \|$/.exec(line);
    if (row && row[1] !== "type") rows.set(row[1]!, row[2]!);
  }
  return rows;
}

/** Fields every event has, documented once above the table. */
const COMMON = new Set(["type", "agent", "delegation"]);

describe("the README's --json-events table", () => {
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
