// Reading what one hel process wrote with `--record <dir>`, checked with zod: record.json,
// raw/requests.jsonl and raw/delegations.jsonl. Contract: readRecordDir never throws for a missing or
// cut-short record (a killed process may leave none); it reports what it found and what was wrong in
// `problems`, so judges can fail a run with a reason instead of the evals crashing.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "../src/zod.js";
import { addUsage, emptyTotals, type UsageTotals } from "../src/agent/usage.js";
import { DelegationLineSchema, RecordJsonSchema, RequestLineSchema, type DelegationLine, type RecordJson, type RequestLine } from "../src/record/schema.js";

export type Totals = UsageTotals;
export { RecordJsonSchema, RequestLineSchema, DelegationLineSchema };
export type { RecordJson, RequestLine, DelegationLine };
export type RecordedToolCall = RecordJson["tool_calls"][number];

/** Everything one `--record` directory holds, parsed. */
export interface RecordDir {
  dir: string;
  record: RecordJson | null;
  requests: RequestLine[];
  delegations: DelegationLine[];
  /** Missing files and lines that did not parse, one sentence each. */
  problems: string[];
}

export async function readRecordDir(dir: string): Promise<RecordDir> {
  const problems: string[] = [];
  const text = async (path: string): Promise<string | null> => {
    try {
      return await readFile(join(dir, path), "utf8");
    } catch {
      problems.push(`${path} is missing`);
      return null;
    }
  };
  let record: RecordJson | null = null;
  const recordText = await text("record.json");
  if (recordText !== null) {
    try {
      const parsed = RecordJsonSchema.safeParse(JSON.parse(recordText));
      if (parsed.success) record = parsed.data;
      else problems.push(`record.json does not match its schema: ${parsed.error.issues[0]?.message ?? "?"}`);
    } catch (e) {
      problems.push(`record.json is not JSON: ${(e as Error).message}`);
    }
  }
  const lines = <T>(path: string, schema: z.ZodType<T>, content: string | null): T[] => {
    if (content === null) return [];
    const out: T[] = [];
    content.split("\n").forEach((line, i) => {
      if (!line.trim()) return;
      try {
        const parsed = schema.safeParse(JSON.parse(line));
        if (parsed.success) out.push(parsed.data);
        else problems.push(`${path} line ${i + 1} does not match its schema: ${parsed.error.issues[0]?.message ?? "?"}`);
      } catch {
        problems.push(`${path} line ${i + 1} is not JSON (cut short?)`);
      }
    });
    return out;
  };
  const requests = lines("raw/requests.jsonl", RequestLineSchema, await text("raw/requests.jsonl"));
  const delegations = lines("raw/delegations.jsonl", DelegationLineSchema, await text("raw/delegations.jsonl"));
  return { dir, record, requests, delegations, problems };
}

/** Usage totals of some request lines; `requests` counts every line, failed and retried ones included. */
export function sumRequests(lines: readonly { usage?: RequestLine["usage"] }[]): Totals {
  return lines.reduce<Totals>((totals, line) => addUsage(totals, line.usage ?? undefined), emptyTotals());
}
