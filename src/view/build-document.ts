// From what a session saved (its snapshot, its children's transcripts, its archived spans) to the one
// document every view renders (document.ts). Pure: the files are read by read-session.ts. Each child is
// put under the parent's call that started it: the call of a child-starting tool whose task is the
// child's, else the next such call not yet given one, in the order the children were numbered.
import { COMPACTED_PREFIX, FOLDED_PREFIX } from "../agent/context/fold.js";
import type { ArchiveFile } from "../agent/archive.js";
import type { ChildTranscript } from "../agent/children/child-transcript.js";
import { childLabel } from "../agent/children/kinds.js";
import { stampOf, unstamped } from "../agent/stamps.js";
import { traitsOf } from "../agent/toolbox.js";
import { emptyTotals, sumTotals, type RequestUsage, type Spend, type UsageTotals } from "../agent/usage.js";
import type { FileEdit } from "../changes/file-edit.js";
import { redactSecrets } from "../redact.js";
import { editsOf } from "../session/edits-by-call.js";
import type { Snapshot } from "../session/snapshot-format.js";
import type { Message } from "../wire/messages.js";
import { EXPORT_FORMAT, EXPORT_VERSION, type AgentSpend, type ArchivedSpan, type Entry, type ExportedChild, type SessionDocument, type ToolCallEntry } from "./document.js";

export interface SavedSession {
  snapshot: Snapshot;
  /** Whether this user's hel signed the snapshot here. */
  signed: boolean;
  children: { transcript: ChildTranscript; vouched: boolean }[];
  /** Each archived span's file, by handle, or why it could not be read. */
  archive: ReadonlyMap<string, { ok: true; file: ArchiveFile } | { ok: false; error: string }>;
  /** Values masked wherever they appear (the API key). */
  secrets: readonly string[];
  exportedAt: Date;
}

const HANDLE_IN_RESULT = /\bhandle: ([a-z0-9]{4,12})\b/;
const HANDLE_IN_NOTE = /\b(?:into|handle:?) ([a-z0-9]{4,12})\b/;

export function buildDocument(saved: SavedSession): SessionDocument {
  const { snapshot } = saved;
  const turnOf = new Map((snapshot.turns ?? []).map((t) => [t.stamp, t.n]));
  const parentEdits = editsOf(snapshot.edits);
  const entries = entriesOf(snapshot.messages, parentEdits, turnOf);
  const archive: ArchivedSpan[] = snapshot.archive.map((a) => {
    const read = saved.archive.get(a.handle);
    const { sha256: _, ...entry } = a;
    return read?.ok ? { ...entry, entries: entriesOf(read.file.messages, parentEdits, turnOf) } : { ...entry, entries: null, problem: read?.error ?? "its file was not read" };
  });
  const calls = [...entries, ...archive.flatMap((a) => a.entries ?? [])].filter((e): e is ToolCallEntry => e.type === "tool_call");
  const children = linkChildren(saved.children, calls, snapshot);
  const requests = [...(snapshot.requests ?? [])];
  const spend = spendOf(snapshot.usage, children, requests);
  const document: SessionDocument = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: saved.exportedAt.toISOString(),
    session: {
      id: snapshot.session_id,
      created_at: snapshot.created_at,
      updated_at: snapshot.updated_at,
      model: snapshot.request_config.model,
      effort: snapshot.request_config.effort,
      written_by_hel: saved.signed,
      ...(snapshot.forked_from ? { forked_from: snapshot.forked_from } : {}),
      ...(snapshot.last_turn ? { last_turn: snapshot.last_turn } : {}),
    },
    turns: [...(snapshot.turns ?? [])],
    checkpoints: [...(snapshot.checkpoints ?? [])],
    entries,
    children,
    archive,
    requests,
    spend,
  };
  return masked(document, saved.secrets);
}

/** A conversation as entries: each assistant message its answer, then each call with its result and edit. */
function entriesOf(messages: readonly Message[], edits: ReadonlyMap<string, FileEdit>, turnOf: ReadonlyMap<number, number> = new Map()): Entry[] {
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
  const out: Entry[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        out.push({ type: "system", text: m.content });
        break;
      case "user": {
        const text = unstamped(m.content);
        if (text.startsWith(FOLDED_PREFIX) || text.startsWith(COMPACTED_PREFIX)) {
          const handle = HANDLE_IN_NOTE.exec(text)?.[1];
          out.push({ type: "note", text, ...(handle ? { archive: handle } : {}) });
          break;
        }
        const stamp = stampOf(m);
        const turn = stamp === null ? undefined : turnOf.get(stamp);
        out.push({ type: "instruction", stamp, ...(turn ? { turn } : {}), text });
        break;
      }
      case "assistant":
        // Every assistant message opens with its answer, empty or not: one answer, one model request.
        out.push({ type: "answer", text: m.content ?? "", ...(m.reasoning_content ? { reasoning: m.reasoning_content } : {}) });
        for (const call of m.tool_calls ?? []) {
          const result = results.get(call.id) ?? null;
          const edit = edits.get(call.id);
          const handle = traitsOf(call.function.name)?.folds && result ? HANDLE_IN_RESULT.exec(result)?.[1] : undefined;
          out.push({
            type: "tool_call",
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
            result: result === null ? null : unstamped(result),
            ...(edit ? { edit } : {}),
            ...(handle ? { archive: handle } : {}),
          });
        }
        break;
      case "tool":
        break;
    }
  }
  return out;
}

function taskOf(call: ToolCallEntry): string | null {
  try {
    const args: unknown = JSON.parse(call.arguments);
    const task = (args as { task?: unknown; question?: unknown } | null)?.task ?? (args as { question?: unknown } | null)?.question;
    return typeof task === "string" ? task : null;
  } catch {
    return null;
  }
}

/** Each child with its transcript as entries, and the call that started it marked with its number. */
function linkChildren(saved: SavedSession["children"], calls: ToolCallEntry[], snapshot: Snapshot): ExportedChild[] {
  const starters = calls.filter((c) => traitsOf(c.name)?.startsChild);
  const taken = new Set<ToolCallEntry>();
  const pick = (task: string): ToolCallEntry | undefined => {
    const free = starters.filter((c) => !taken.has(c));
    return free.find((c) => taskOf(c) === task) ?? free[0];
  };
  return saved.map(({ transcript: t, vouched }) => {
    const call = pick(t.task);
    if (call) {
      taken.add(call);
      call.child = t.number;
    }
    // A child's first messages are the parent's it was given (a full delegation): its own begin at its task.
    const own = t.messages.findLastIndex((m) => m.role === "user" && unstamped(m.content).includes(t.task));
    const messages = own > 0 ? [t.messages[0]!, ...t.messages.slice(own)] : t.messages;
    return {
      number: t.number,
      kind: t.kind,
      mode: t.mode,
      ...(t.agent_name ? { agent_name: t.agent_name } : {}),
      task: t.task,
      call_id: call?.id ?? null,
      answer: t.answer,
      exit_reason: t.exit_reason,
      spend: { ...t.usage, cost_usd: t.cost_usd },
      ...(vouched ? {} : { unvouched: true as const }),
      entries: entriesOf(messages, editsOf(snapshot.edits, t.number)),
    };
  });
}

function totalsOfRequests(requests: readonly RequestUsage[]): Spend {
  return requests.reduce<Spend>(
    (sum, r) => ({
      ...sumTotals(sum, {
        requests: 1,
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
        prompt_cache_hit_tokens: r.prompt_cache_hit_tokens,
        prompt_cache_miss_tokens: r.prompt_cache_miss_tokens,
        ...(r.estimated ? { estimated_requests: 1 } : {}),
      }),
      cost_usd: sum.cost_usd === null || r.cost_usd === null ? null : Math.round((sum.cost_usd + r.cost_usd) * 1e9) / 1e9,
    }),
    { ...emptyTotals(), cost_usd: 0 },
  );
}

/**
 * Dollars per agent: from the session's request log where it has one; a session saved before it was
 * kept has its totals and its children's, the parent's dollars unknown.
 */
function spendOf(usage: UsageTotals, children: readonly ExportedChild[], requests: readonly RequestUsage[]): SessionDocument["spend"] {
  const label = (c: ExportedChild) => `#${c.number} ${childLabel({ kind: c.kind, mode: c.mode, ...(c.agent_name ? { agentName: c.agent_name } : {}) })}`;
  if (requests.length > 0) {
    const parent: AgentSpend = { agent: "parent", label: "parent", ...totalsOfRequests(requests.filter((r) => r.agent === "parent")) };
    const numbers = [...new Set([...children.map((c) => c.number), ...requests.flatMap((r) => (r.delegation ? [r.delegation] : []))])].sort((a, b) => a - b);
    const byChild = numbers.map((n): AgentSpend => {
      const child = children.find((c) => c.number === n);
      return { agent: "child", delegation: n, label: child ? label(child) : `#${n}`, ...totalsOfRequests(requests.filter((r) => r.agent === "child" && r.delegation === n)) };
    });
    return { total: totalsOfRequests(requests), by_agent: [parent, ...byChild] };
  }
  const childTotals = children.reduce<UsageTotals>((sum, c) => sumTotals(sum, c.spend), emptyTotals());
  const parentTotals: UsageTotals = {
    requests: Math.max(0, usage.requests - childTotals.requests),
    prompt_tokens: Math.max(0, usage.prompt_tokens - childTotals.prompt_tokens),
    completion_tokens: Math.max(0, usage.completion_tokens - childTotals.completion_tokens),
    prompt_cache_hit_tokens: Math.max(0, usage.prompt_cache_hit_tokens - childTotals.prompt_cache_hit_tokens),
    prompt_cache_miss_tokens: Math.max(0, usage.prompt_cache_miss_tokens - childTotals.prompt_cache_miss_tokens),
  };
  return {
    total: { ...usage, cost_usd: null },
    by_agent: [{ agent: "parent", label: "parent", ...parentTotals, cost_usd: null }, ...children.map((c): AgentSpend => ({ agent: "child", delegation: c.number, label: label(c), ...c.spend }))],
  };
}

/** Every text of the document with the secrets masked. */
function masked<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === "string") return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => masked(v, secrets)) as T;
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, secrets)])) as T;
  return value;
}
