// Every answered request of a session, one JSON line each in `requests.jsonl` beside its snapshot: when
// its response arrived, which agent sent it, the model its body named, and the response's usage. The
// snapshot keeps only totals; what is spent by day, by model and in DeepSeek's peak hours (`hel stats`),
// and each request's tokens (the exported page's chart), need the requests one by one.
// The log is read as untrusted data (a clone can plant one): a line that does not parse is skipped and
// counted, never fatal, and the file is read only when it is a regular file reached through no link.
// Lines are appended at each save, under the lease, so a holder that lost the session adds nothing;
// a line cut short by a crash is one skipped line.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { z } from "../zod.js";
import type { AgentEvent } from "../agent/events.js";
import { readRegularFile } from "../fs/regular-file.js";

const count = z.number().int().nonnegative();

export const RequestRecordSchema = z.object({
  /** When the response arrived: peak hours and days are read from it. */
  at: z.iso.datetime({ offset: true }),
  agent: z.enum(["parent", "child"]),
  /** The child's delegation number, for a child's request. */
  delegation: z.number().int().positive().optional(),
  /** The model the request's body named: the price it is billed at. */
  model: z.string().min(1),
  duration_ms: count,
  usage: z.object({
    prompt_tokens: count,
    completion_tokens: count,
    prompt_cache_hit_tokens: count,
    prompt_cache_miss_tokens: count,
    /** The response had no usage: these tokens are hel's estimate. */
    estimated: z.literal(true).optional(),
  }),
});
export type RequestRecord = z.infer<typeof RequestRecordSchema>;

export const REQUEST_LOG = "requests.jsonl";

/** Collects the records of a run's answered requests from its event stream, until they are written. */
export class RequestLog {
  private readonly models = new Map<string, string>();
  private pending: RequestRecord[] = [];

  constructor(private readonly now: () => Date = () => new Date()) {}

  observe(event: AgentEvent): void {
    const key = `${event.agent}:${event.delegation ?? 0}`;
    if (event.type === "request") this.models.set(key, event.body.model);
    if (event.type !== "response" || !event.usage) return;
    const model = this.models.get(key);
    if (model === undefined) return;
    const u = event.usage;
    this.pending.push({
      at: this.now().toISOString(),
      agent: event.agent,
      ...(event.delegation !== undefined ? { delegation: event.delegation } : {}),
      model,
      duration_ms: Math.max(0, Math.round(event.durationMs)),
      usage: {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        prompt_cache_hit_tokens: u.prompt_cache_hit_tokens,
        prompt_cache_miss_tokens: u.prompt_cache_miss_tokens,
        ...(u.estimated ? { estimated: true as const } : {}),
      },
    });
  }

  /**
   * Appends the records not yet written to `path` (through `commit`, the lease's fence); they are
   * dropped from memory only once written, so a failed append is tried again at the next save.
   */
  async flush(path: string, commit: (change: () => Promise<void>) => Promise<void>): Promise<void> {
    if (this.pending.length === 0) return;
    const records = this.pending;
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join("");
    await commit(async () => {
      // Never through a link planted in the log's place.
      const file = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
      try {
        await file.writeFile(text);
      } finally {
        await file.close();
      }
    });
    this.pending = this.pending.slice(records.length);
  }
}

/** A log is a few hundred bytes a request: this bound is far beyond any real session's. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

export interface ReadLog {
  records: RequestRecord[];
  /** Lines that were not a record (cut short, or not hel's). */
  skipped: number;
}

/** The session's request records; null when it has no log (saved before hel kept one, or never answered). */
export async function readRequestLog(path: string): Promise<ReadLog | null> {
  let text: string;
  try {
    text = await readRegularFile(path, MAX_LOG_BYTES, false);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return parseRequestLog(text);
}

export function parseRequestLog(text: string): ReadLog {
  const records: RequestRecord[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: ReturnType<typeof RequestRecordSchema.safeParse> | undefined;
    try {
      parsed = RequestRecordSchema.safeParse(JSON.parse(line));
    } catch {
      // Not JSON: counted below.
    }
    if (parsed?.success) records.push(parsed.data);
    else skipped++;
  }
  return { records, skipped };
}
