// Reading what one hel process wrote with `--record <dir>` (design §1), checked with zod: record.json,
// raw/requests.jsonl and raw/delegations.jsonl. Contract: readRecordDir never throws for a missing or
// cut-short record (a killed process may leave none); it reports what it found and what was wrong in
// `problems`, so judges can fail a run with a reason instead of the evals crashing.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ChatRequestSchema, UsageSchema } from "../wire/messages.js";

const TotalsSchema = z.object({
  requests: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  prompt_cache_hit_tokens: z.number().int().nonnegative(),
  prompt_cache_miss_tokens: z.number().int().nonnegative(),
});
export type Totals = z.infer<typeof TotalsSchema>;

const EXIT_REASONS = ["completed", "max_steps", "length", "error", "aborted"] as const;

export const RecordJsonSchema = z.object({
  session_id: z.string().nullable(),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS).nullable(),
  requests: z.number().int().nonnegative(),
  usage: z.object({ total: TotalsSchema, parent: TotalsSchema, child: TotalsSchema }),
  tool_calls: z.array(
    z.object({
      agent: z.enum(["parent", "child"]),
      delegation: z.number().int().optional(),
      name: z.string(),
      arguments: z.string(),
      is_error: z.boolean(),
    }),
  ),
  instructions: z.array(z.object({ instruction: z.string(), answer: z.string().nullable(), exit_reason: z.enum(EXIT_REASONS) })),
});
export type RecordJson = z.infer<typeof RecordJsonSchema>;
export type RecordedToolCall = RecordJson["tool_calls"][number];

export const RequestLineSchema = z.object({
  agent: z.enum(["parent", "child"]),
  delegation: z.number().int().optional(),
  status: z.number().int(),
  usage: UsageSchema.nullable().optional(),
  finish_reason: z.string().nullable().optional(),
  error: z.string().optional(),
  hit_ratio: z.number().nullable(),
  duration_ms: z.number(),
  body: ChatRequestSchema,
});
export type RequestLine = z.infer<typeof RequestLineSchema>;

export const DelegationLineSchema = z.object({
  delegation: z.number().int(),
  mode: z.string(),
  task: z.string(),
  tool_calls: z.array(z.object({ name: z.string(), arguments: z.string() })),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  usage: TotalsSchema,
});
export type DelegationLine = z.infer<typeof DelegationLineSchema>;

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
  const t: Totals = { requests: 0, prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0 };
  for (const l of lines) {
    t.requests++;
    t.prompt_tokens += l.usage?.prompt_tokens ?? 0;
    t.completion_tokens += l.usage?.completion_tokens ?? 0;
    t.prompt_cache_hit_tokens += l.usage?.prompt_cache_hit_tokens ?? 0;
    t.prompt_cache_miss_tokens += l.usage?.prompt_cache_miss_tokens ?? 0;
  }
  return t;
}
