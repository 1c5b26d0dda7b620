// Measurement records for `--record <dir>`: raw/requests.jsonl (one line per HTTP
// request, with the exact body), raw/delegations.jsonl (one line per child: a delegation or a review)
// and record.json. Built only from the agent's event stream; usage and cost come from the usage ledger.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contextEventOf } from "../agent/context/context-event.js";
import type { AgentEvent, ChildKind } from "../agent/events.js";
import { totalsOf, hitRatio } from "../agent/usage.js";
import { byAgent, emptySpend, type UsageLedger } from "../agent/usage-ledger.js";
import type { ChatRequest } from "../wire/messages.js";
import { requestBytes } from "../wire/serialize.js";
import type { RecordJson } from "./schema.js";
import { monotonicMs } from "../clock.js";

interface PendingRequest {
  body: ChatRequest;
  sentAt: number;
}

export class Recorder {
  private readonly requestsPath: string;
  private readonly delegationsPath: string;
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
  };
  private currentInstruction = "";

  constructor(
    private readonly dir: string,
    private readonly ledger: UsageLedger,
  ) {
    mkdirSync(join(dir, "raw"), { recursive: true });
    this.requestsPath = join(dir, "raw", "requests.jsonl");
    this.delegationsPath = join(dir, "raw", "delegations.jsonl");
    writeFileSync(this.requestsPath, "");
    writeFileSync(this.delegationsPath, "");
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
        });
        break;
      case "tool_start":
        this.toolArguments.set(event.callId, event.arguments);
        break;
      case "delegation_start":
        this.kinds.set(event.number, event.kind);
        break;
      case "delegation_end": {
        const spent = this.ledger.run().delegations.find((d) => d.delegation === event.number) ?? { ...emptySpend() };
        appendFileSync(
          this.delegationsPath,
          JSON.stringify({
            delegation: event.number,
            kind: event.kind,
            mode: event.mode,
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
    appendFileSync(this.requestsPath, Buffer.concat([head, requestBytes(pending.body), Buffer.from("}\n")]));
  }

  /** record.json is rewritten after every instruction, so a run cut short still leaves one. */
  flush(): void {
    const usage = this.ledger.run();
    this.record.usage = { total: usage.total, parent: usage.parent, child: usage.children, by_agent: byAgent(usage) };
    writeFileSync(join(this.dir, "record.json"), JSON.stringify(this.record, null, 2) + "\n");
  }
}
