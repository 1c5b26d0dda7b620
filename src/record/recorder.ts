// Measurement records for `--record <dir>`: raw/requests.jsonl (one line per HTTP
// request, with the exact body), raw/delegations.jsonl (one line per child: a delegation or a review)
// and record.json (the hooks that ran among what it sums up). Built only from the agent's event stream; usage and cost come from the usage ledger.
// The directory may be inside the project, where a command can plant links: each file is created
// afresh in place of whatever is there (fs/own-file.ts), never written through.
import { writeSync } from "node:fs";
import { join } from "node:path";
import { HelError } from "../errors.js";
import { createOwnFileSync, ownDirectorySync, replaceFileSync } from "../fs/own-file.js";
import { FileRefused } from "../fs/regular-file.js";
import { contextEventOf } from "../agent/context/context-event.js";
import type { AgentEvent, ChildKind } from "../agent/events.js";
import { totalsOf, hitRatio } from "../agent/usage.js";
import { byAgent, emptySpend, type UsageLedger } from "../agent/usage-ledger.js";
import type { ChatRequest } from "../wire/messages.js";
import { requestBytes } from "../wire/serialize.js";
import type { RecordJson } from "./schema.js";
import type { ToolDetails } from "../tools/types.js";
import { monotonicMs } from "../clock.js";

interface PendingRequest {
  body: ChatRequest;
  sentAt: number;
}

export class Recorder {
  private readonly requests: number;
  private readonly delegations: number;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly toolArguments = new Map<string, string>();
  private readonly kinds = new Map<number, ChildKind>();
  private readonly record: RecordJson = {
    session_id: null,
    answer: null,
    exit_reason: null,
    requests: 0,
    usage: { total: emptySpend(), parent: emptySpend(), child: emptySpend(), by_agent: [] },
    tool_calls: [],
    instructions: [],
    context: [],
    hooks: [],
  };
  private currentInstruction = "";

  constructor(
    private readonly dir: string,
    private readonly ledger: UsageLedger,
  ) {
    refusedAs(join(dir, "raw"), ownDirectorySync);
    this.requests = refusedAs(join(dir, "raw", "requests.jsonl"), createOwnFileSync);
    this.delegations = refusedAs(join(dir, "raw", "delegations.jsonl"), createOwnFileSync);
  }

  setSessionId(id: string): void {
    this.record.session_id = id;
  }

  readonly observe = (event: AgentEvent): void => {
    const key = `${event.agent}:${event.delegation ?? 0}`;
    const change = contextEventOf(event);
    if (change) this.record.context.push(change);
    switch (event.type) {
      case "turn_start":
        if (event.agent === "parent") this.currentInstruction = event.instruction;
        break;
      case "request":
        this.pending.set(key, { body: event.body, sentAt: monotonicMs() });
        break;
      case "retry":
        this.writeRequest(event, key, { status: event.status, error: event.reason });
        break;
      case "response":
        this.writeRequest(event, key, {
          status: event.status,
          usage: event.usage ?? null,
          finish_reason: event.finishReason,
          ...(event.error ? { error: event.error } : {}),
        });
        break;
      case "tool_end":
        this.record.tool_calls.push({
          agent: event.agent,
          ...(event.delegation !== undefined ? { delegation: event.delegation } : {}),
          name: event.name,
          arguments: this.argumentsOf(event.callId),
          is_error: event.isError,
          ...approvalOf(event.details),
        });
        break;
      case "tool_start":
        this.toolArguments.set(event.callId, event.arguments);
        break;
      case "hook":
        this.record.hooks.push({
          agent: event.agent,
          ...(event.delegation !== undefined ? { delegation: event.delegation } : {}),
          event: event.event,
          command: event.command,
          exit_code: event.exitCode,
          timed_out: event.timedOut,
        });
        break;
      case "delegation_start":
        this.kinds.set(event.number, event.kind);
        break;
      case "delegation_end": {
        const spent = this.ledger.run().delegations.find((d) => d.delegation === event.number) ?? { ...emptySpend() };
        writeAll(
          this.delegations,
          JSON.stringify({
            delegation: event.number,
            kind: event.kind,
            mode: event.mode,
            ...(event.agentName ? { agent_name: event.agentName } : {}),
            task: event.task,
            tool_calls: event.toolCalls,
            answer: event.answer,
            exit_reason: event.exitReason,
            usage: totalsOf(spent),
            cost_usd: spent.cost_usd,
          }) + "\n",
        );
        break;
      }
      case "turn_end":
        if (event.agent === "parent") {
          this.record.answer = event.answer;
          this.record.exit_reason = event.exitReason;
          this.record.instructions.push({ instruction: this.currentInstruction, answer: event.answer, exit_reason: event.exitReason });
          this.flush();
        }
        break;
    }
  };

  private argumentsOf(callId: string): string {
    const args = this.toolArguments.get(callId) ?? "";
    this.toolArguments.delete(callId);
    return args;
  }

  private writeRequest(event: AgentEvent, key: string, outcome: Record<string, unknown>): void {
    const pending = this.pending.get(key);
    if (!pending) return;
    this.pending.delete(key);
    this.record.requests++;
    const usage = outcome.usage as { prompt_cache_hit_tokens: number; prompt_tokens: number } | null | undefined;
    const line = {
      agent: event.agent,
      ...(event.delegation !== undefined ? { delegation: event.delegation, kind: this.kinds.get(event.delegation) } : {}),
      ...outcome,
      hit_ratio: usage ? Number(hitRatio(usage).toFixed(4)) : null,
      duration_ms: Math.round(monotonicMs() - pending.sentAt),
    };
    // The body's JSON comes from the per-message cache instead of being serialized again.
    const head = Buffer.from(`${JSON.stringify(line).slice(0, -1)},"body":`);
    writeAll(this.requests, Buffer.concat([head, requestBytes(pending.body), Buffer.from("}\n")]));
  }

  /** record.json is rewritten after every instruction, so a run cut short still leaves one. */
  flush(): void {
    const usage = this.ledger.run();
    this.record.usage = { total: usage.total, parent: usage.parent, child: usage.children, by_agent: byAgent(usage) };
    replaceFileSync(join(this.dir, "record.json"), JSON.stringify(this.record, null, 2) + "\n");
  }
}

function refusedAs<T>(path: string, open: (path: string) => T): T {
  try {
    return open(path);
  } catch (e) {
    if (!(e instanceof FileRefused)) throw e;
    throw new HelError(`--record: ${path} ${e.message}, and hel writes its records only into files of its own — remove it, or record into another directory`, 2);
  }
}

/** All of `data` at the end of the file (opened for appending), however many writes it takes. */
function writeAll(fd: number, data: string | Buffer): void {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

/** How a command came to run outside the sandbox, or was refused that, as the record keeps it. */
function approvalOf(details: ToolDetails | undefined): Pick<RecordJson["tool_calls"][number], "approval"> {
  if (details?.kind === "refusal") return { approval: { by: "no", justification: details.justification } };
  if (details?.kind === "command" && details.outside) return { approval: details.outside };
  return {};
}
