// The formats other people's tools read — `--json` objects, `--json-events` lines, `--output-format stream-json` lines, `--record` files, snapshots, child
// transcripts, archives, what a hook reads on stdin, `hel config --json` — and the command line's flags are a contract:
// fields are added, never removed or renamed. Each format's JSON schema (from its one zod definition)
// is flattened to the list of its field paths with their types, kept in test/contracts/<name>.txt; a
// path that disappears fails here.
// A path that is new fails too until it is recorded, so that the next removal of it is caught:
// `HEL_RECORD_CONTRACTS=1 npx vitest run test/contracts.test.ts` records additions (never removals).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ArchiveFileSchema } from "../src/agent/archive.js";
import { ChildTranscriptSchema } from "../src/agent/children/child-transcript.js";
import { JsonEventSchema } from "../src/cli/json/json-events.js";
import { JsonOutputSchema } from "../src/cli/json/json-output.js";
import { StreamJsonLineSchema } from "../src/cli/json/stream-json.js";
import { HOOK_PAYLOAD_SCHEMAS } from "../src/hooks/hook-payloads.js";
import { DelegationLineSchema, RecordJsonSchema, RequestLineSchema } from "../src/record/schema.js";
import { SnapshotSchema } from "../src/session/snapshot-format.js";
import { SettingReportSchema } from "../src/settings/report.js";
import { ExitNow, parseArgs } from "../src/cli/options.js";

const DIR = join(import.meta.dirname, "contracts");
const RECORD = process.env.HEL_RECORD_CONTRACTS === "1";

type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
};

/**
 * Every field path of a schema, one line each: `usage.prompt_tokens: integer`. A union's branches are
 * named by their constant `type` (an event's kind) where they have one; enum values and optional
 * fields are lines of their own, so narrowing an enum or making a field required is seen as a change.
 */
function fieldPaths(schema: JsonSchema, path = ""): string[] {
  const lines: string[] = [];
  const at = path || "(root)";
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) {
    // A nullable field is a union with null: its one other branch keeps the field's own path.
    const values = branches.filter((b) => b.type !== "null");
    if (values.length < branches.length) lines.push(`${at}: nullable`);
    const named = values.length > 1 && values.every((b) => typeof b.properties?.type?.const === "string");
    values.forEach((branch, i) => {
      lines.push(...fieldPaths(branch, values.length === 1 ? path : named ? `${path}[type=${String(branch.properties?.type?.const)}]` : `${path}|${i}`));
    });
    return lines;
  }
  if (schema.const !== undefined) return [`${at} = ${JSON.stringify(schema.const)}`];
  if (schema.enum) return schema.enum.map((value) => `${at} = ${JSON.stringify(value)}`);
  const type = Array.isArray(schema.type) ? schema.type.join("|") : (schema.type ?? "any");
  lines.push(`${at}: ${type}`);
  for (const [key, value] of Object.entries(schema.properties ?? {})) {
    const child = path ? `${path}.${key}` : key;
    if (!schema.required?.includes(key)) lines.push(`${child}: optional`);
    lines.push(...fieldPaths(value, child));
  }
  if (schema.items) lines.push(...fieldPaths(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === "object") lines.push(...fieldPaths(schema.additionalProperties, `${path}{}`));
  return lines;
}

/** `path` names the schema where one file pins several, as hooks.txt does one per event. */
const schemaPaths = (schema: z.ZodType, path = ""): string[] => fieldPaths(z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchema, path);

/** `hel <args> --help` as the command prints it: commander's help, written by parseArgs in this process. */
function help(args: string[]): string {
  let text = "";
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => ((text += chunk.toString()), true)) as typeof process.stdout.write;
  try {
    parseArgs([...args, "--help"], { ...process.env, NO_COLOR: "1" }, "test");
  } catch (error) {
    if (!(error instanceof ExitNow) || error.exitCode !== 0) throw error;
  } finally {
    process.stdout.write = write;
  }
  return stripVTControlCharacters(text);
}

/** The long flags of `hel --help` and of each command's help, as `hel <command> --flag`, and the commands. */
function flagPaths(): string[] {
  const section = (text: string, title: string) => text.split(/\n(?=\S)/).find((part) => part.startsWith(`${title}:`)) ?? "";
  const flags = (text: string) => [...section(text, "Options").matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!);
  const commands = (text: string) => [...section(text, "Commands").matchAll(/^ {2}([a-z]+)/gm)].map((m) => m[1]!).filter((c) => c !== "help");
  const lines: string[] = [];
  const walk = (path: string[]) => {
    const text = help(path);
    const name = ["hel", ...path].join(" ");
    lines.push(name, ...flags(text).map((flag) => `${name} ${flag}`));
    for (const command of commands(text)) walk([...path, command]);
  };
  walk([]);
  return lines;
}

const CONTRACTS: Record<string, () => string[]> = {
  "json-events": () => schemaPaths(JsonEventSchema),
  "json-output": () => schemaPaths(JsonOutputSchema),
  "stream-json": () => schemaPaths(StreamJsonLineSchema),
  "record-json": () => schemaPaths(RecordJsonSchema),
  "record-requests": () => schemaPaths(RequestLineSchema),
  "record-delegations": () => schemaPaths(DelegationLineSchema),
  snapshot: () => schemaPaths(SnapshotSchema),
  "child-transcript": () => schemaPaths(ChildTranscriptSchema),
  archive: () => schemaPaths(ArchiveFileSchema),
  hooks: () => Object.entries(HOOK_PAYLOAD_SCHEMAS).flatMap(([event, schema]) => schemaPaths(schema, event)),
  flags: flagPaths,
  config: () => schemaPaths(SettingReportSchema),
};

describe("the contracts other tools read", () => {
  it.each(Object.keys(CONTRACTS))("%s keeps every field it had, and records each new one", (name) => {
    const current = [...new Set(CONTRACTS[name]!())].sort();
    const file = join(DIR, `${name}.txt`);
    const pinned = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    const removed = pinned.filter((line) => !current.includes(line));
    expect(removed, `${name}: removed or renamed (a contract break)`).toEqual([]);
    const added = current.filter((line) => !pinned.includes(line));
    if (RECORD && added.length > 0) writeFileSync(file, current.join("\n") + "\n");
    else expect(added, `${name}: new fields — record them with HEL_RECORD_CONTRACTS=1`).toEqual([]);
  });
});

describe("the field paths of a schema", () => {
  it("name union branches by their type, and list enum values, optional and nullable fields", () => {
    const schema = z.discriminatedUnion("type", [
      z.object({ type: z.literal("a"), x: z.number().int().nullable() }),
      z.object({ type: z.literal("b"), y: z.enum(["p", "q"]).optional(), list: z.array(z.object({ n: z.string() })) }),
    ]);
    expect(schemaPaths(schema)).toEqual([
      "[type=a]: object",
      '[type=a].type = "a"',
      "[type=a].x: nullable",
      "[type=a].x: integer",
      "[type=b]: object",
      '[type=b].type = "b"',
      "[type=b].y: optional",
      '[type=b].y = "p"',
      '[type=b].y = "q"',
      "[type=b].list: array",
      "[type=b].list[]: object",
      "[type=b].list[].n: string",
    ]);
  });
});
