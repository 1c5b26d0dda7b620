// Realistic conversations for the bench, deterministic from a seed. Contract: every history is one a
// real hel session could hold — exchanges of a user instruction, tool-call steps (assistant with
// reasoning_content and tool_calls, then one tool result per call) and a final answer — so the
// simulator and saveSnapshot accept it. Sizes follow what read_file pages and answers weigh in
// practice: user/assistant messages a few hundred bytes, tool results 1–4 KB.
import { buildSystemPrompt, isoDay } from "../src/agent/system-prompt.js";
import type { SnapshotInput } from "../src/session/snapshot-format.js";
import type { Message, ToolDefinition } from "../src/wire/messages.js";

export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence on every machine. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pickOne = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const WORDS = (
  "the a to of and in is it that for this with on be as function file test value return error case line " +
  "call result type string number config parse check update change module import export const let async " +
  "await handler request response session user path read write fix bug add remove should when then because " +
  "instead greeting typo loop index offset cursor page buffer stream token cache prefix model tool answer"
).split(" ");
const IDENTS = ["parse", "config", "result", "items", "index", "buffer", "handler", "session", "options", "value", "cursor", "line"];
const FILES = ["src/parse.ts", "src/config.ts", "src/server/routes.ts", "src/util/strings.ts", "test/parse.test.ts", "src/index.ts", "README.md"];

function prose(r: Rng, bytes: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < bytes) {
    const sentence: string[] = [];
    const len = between(r, 6, 16);
    for (let i = 0; i < len; i++) sentence.push(pickOne(r, WORDS));
    const s = sentence.join(" ");
    const text = s[0]!.toUpperCase() + s.slice(1) + ".";
    out.push(text);
    n += text.length + 1;
  }
  return out.join(" ");
}

/** A read_file page: numbered code lines, tab-separated, as hel's tool returns them. */
function codePage(r: Rng, bytes: number, firstLine: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let ln = firstLine; n < bytes; ln++) {
    const indent = "  ".repeat(between(r, 0, 3));
    const a = pickOne(r, IDENTS);
    const b = pickOne(r, IDENTS);
    const forms = [
      `const ${a}${ln} = ${b}(${pickOne(r, IDENTS)}, ${between(r, 0, 999)});`,
      `if (${a}.length > ${between(r, 1, 64)}) return ${b};`,
      `// ${prose(r, between(r, 20, 70))}`,
      `export function ${a}${ln}(${b}: string): number {`,
      `}`,
      `${a}.push(${JSON.stringify(pickOne(r, WORDS))});`,
    ];
    const line = `${String(ln).padStart(6)}\t${indent}${pickOne(r, forms)}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join("\n");
}

/** One exchange: user, `steps` tool-call steps, final answer. Call ids are unique via `nextId`. */
export function exchange(r: Rng, steps: number, nextId: () => string): Message[] {
  const out: Message[] = [{ role: "user", content: prose(r, between(r, 150, 800)) }];
  for (let s = 0; s < steps; s++) {
    const id = nextId();
    const file = pickOne(r, FILES);
    const edit = r() < 0.3;
    const args = edit ? JSON.stringify({ path: file, old_string: prose(r, between(r, 30, 120)), new_string: prose(r, between(r, 30, 120)) }) : JSON.stringify({ path: file, offset: between(r, 1, 400) });
    out.push({
      role: "assistant",
      content: r() < 0.5 ? null : prose(r, between(r, 40, 200)),
      reasoning_content: prose(r, between(r, 200, 1200)),
      tool_calls: [{ id, type: "function", function: { name: edit ? "search_replace" : "read_file", arguments: args } }],
    });
    out.push({
      role: "tool",
      tool_call_id: id,
      content: edit ? `Edited ${file}: replaced 1 occurrence (lines ${between(r, 1, 400)}-${between(r, 401, 500)}).` : codePage(r, between(r, 1000, 4000), between(r, 1, 400)),
    });
  }
  out.push({ role: "assistant", content: prose(r, between(r, 300, 1500)), reasoning_content: prose(r, between(r, 100, 600)) });
  return out;
}

function idCounter(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}_${String(n++).padStart(6, "0")}`;
}

/** Exactly `count` messages, the system prompt first; ends with a complete exchange or an answer. */
export function historyOfCount(systemPrompt: string, count: number, seed = 1): Message[] {
  const r = rng(seed);
  const nextId = idCounter("call_hist");
  const out: Message[] = [{ role: "system", content: systemPrompt }];
  while (out.length < count) {
    const room = count - out.length;
    if (room < 2) {
      // One slot left: an answer to the previous exchange keeps the conversation valid.
      out.push({ role: "assistant", content: prose(r, between(r, 300, 1500)) });
      break;
    }
    const steps = Math.min(between(r, 1, 4), Math.floor((room - 2) / 2));
    out.push(...exchange(r, steps, nextId));
  }
  return out;
}

/** Messages whose JSON weighs at least `bytes`, the system prompt first. */
export function historyOfBytes(systemPrompt: string, bytes: number, seed = 2): Message[] {
  const r = rng(seed);
  const nextId = idCounter("call_snap");
  const out: Message[] = [{ role: "system", content: systemPrompt }];
  let size = systemPrompt.length + 40;
  while (size < bytes) {
    for (const m of exchange(r, between(r, 1, 4), nextId)) {
      out.push(m);
      size += Buffer.byteLength(JSON.stringify(m)) + 1;
    }
  }
  return out;
}

export function jsonBytes(messages: readonly Message[]): number {
  return Buffer.byteLength(JSON.stringify(messages));
}

/**
 * A session of about `bytes` as hel would have saved it in `projectDir`: the history above behind
 * hel's system prompt, with the figures a long session carries.
 */
export function sessionOfBytes(projectDir: string, bytes: number, id: string, tools: ToolDefinition[]): SnapshotInput {
  const now = new Date().toISOString();
  const messages = historyOfBytes(buildSystemPrompt({ projectDir, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules: [] }), bytes);
  return {
    schema_version: 2,
    session_id: id,
    cwd: projectDir,
    created_at: now,
    updated_at: now,
    request_config: {
      model: "deepseek-flash",
      max_output_tokens: 65536,
      max_steps: 50,
      effort: "high",
      access: "edit",
      delegate: null,
      compaction: { enabled: false, threshold_tokens: null },
    },
    meter: { message_count: messages.length, input_tokens: Math.round(bytes / 4) },
    usage: { requests: messages.length >> 1, prompt_tokens: bytes * 10, completion_tokens: bytes >> 3, prompt_cache_hit_tokens: bytes * 9, prompt_cache_miss_tokens: bytes },
    children: 0,
    stamps: 0,
    compaction: { failures: 0, stopped: false },
    archive: [],
    cursors: {},
    tools,
    messages,
  };
}
