// The fold suite's judges (the seed article's experiment on fixtures/fold): did the build pass through
// run_command, did the follow-up keep the claim's select and update in one transaction (read off the
// code, and by the fixture's two-worker test run after the run), did the agent call recall or ask
// before its follow-up edit, and did the hand-over text (fold note, compaction summary or child's
// answer) keep the transaction constraint. Pure, like every judge.
import type { Message } from "../src/wire/messages.js";
import { callTouches, type Judge, type Verdict } from "./judges.js";
import type { RecordDir } from "./records.js";

const pass = (detail: string): Verdict => ({ pass: true, detail });
const fail = (detail: string): Verdict => ({ pass: false, detail });

const STAMP = /^\[#\d+\] /;
const unstamped = (text: string): string => text.replace(STAMP, "");

/** The constraint the build teaches, as a note or summary would put it. */
export const CONSTRAINT = /\b(?:one|the same|a single|same) transaction\b/i;
const BUILD_COMMAND = /\bbuild\.js\b|\bnpm (?:run )?build\b/;
export const CLAIM_FILE = "queue/claim.js";
/** The queue's code the follow-up may touch, read after the run. */
export const QUEUE_FILES = [CLAIM_FILE, "queue/worker.js", "queue/select.js", "queue/helpers.js", "queue/jobs.js"];

/** Every message any recorded request carried, each once (later requests repeat earlier ones), with its agent. */
function sentMessages(records: readonly RecordDir[]): { agent: string; message: Message }[] {
  const seen = new Set<string>();
  const out: { agent: string; message: Message }[] = [];
  for (const r of records)
    for (const line of r.requests)
      for (const message of line.body.messages) {
        const key = `${line.agent}\0${line.delegation ?? ""}\0${JSON.stringify(message)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ agent: line.agent, message });
      }
  return out;
}

const parseArgs = (text: string): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** A run_command of the build whose result (in a later request) opens with `exit code 0`. */
export const buildPassedJudge: Judge = {
  id: "build",
  title: "build passes",
  description: "a run_command of `node build.js` (by the parent or a child) returned exit code 0, as its result in a later request shows.",
  judge: ({ records }) => {
    const sent = sentMessages(records);
    const results = new Map<string, string>();
    for (const { message } of sent) if (message.role === "tool") results.set(message.tool_call_id, unstamped(message.content));
    let runs = 0;
    for (const { agent, message } of sent) {
      if (message.role !== "assistant") continue;
      for (const c of message.tool_calls ?? []) {
        if (c.function.name !== "run_command" || !BUILD_COMMAND.test(String(parseArgs(c.function.arguments).command ?? ""))) continue;
        runs++;
        if (results.get(c.id)?.startsWith("exit code 0")) return pass(`the build passed in the ${agent}'s run ${runs}`);
      }
    }
    return fail(runs ? `the build ran ${runs} times and never exited 0` : "no run_command ran the build");
  },
};

interface QueryCall {
  receiver: string;
  sql: string;
}

/** `x.query(SQL_OR_CONSTANT, …)` calls, the SQL resolved through the file's string constants. */
function queryCalls(code: string): QueryCall[] {
  const constants = new Map<string, string>();
  for (const m of code.matchAll(/\b(?:const|let|var)\s+(\w+)\s*=\s*(["'`])([\s\S]*?)\2/g)) constants.set(m[1]!, m[3]!);
  const calls: QueryCall[] = [];
  for (const m of code.matchAll(/([\w$.]+)\s*\.\s*query\s*\(\s*(?:(["'`])([\s\S]*?)\2|([\w$]+))/g)) {
    const sql = m[3] ?? constants.get(m[4] ?? "") ?? "";
    calls.push({ receiver: m[1]!, sql });
  }
  return calls;
}

/**
 * Read off the queue's code: the SELECT … FOR UPDATE SKIP LOCKED and the claiming UPDATE run on the same
 * transaction object, never on the handle that begins transactions (its statements commit at once), and
 * the code begins one transaction, not one for the select and another for the claim.
 */
export function sameTransaction(files: Readonly<Record<string, string | null>>): Verdict {
  const code = QUEUE_FILES.map((f) => files[f] ?? "").join("\n");
  if (!files[CLAIM_FILE]) return fail(`${CLAIM_FILE} is missing`);
  const calls = queryCalls(code);
  const selects = calls.filter((c) => /FOR\s+UPDATE\s+SKIP\s+LOCKED/i.test(c.sql));
  const updates = calls.filter((c) => /^\s*UPDATE\s+jobs\b/i.test(c.sql));
  if (selects.length === 0) return fail("no query runs the SELECT … FOR UPDATE SKIP LOCKED");
  if (updates.length === 0) return fail("no query runs the claiming UPDATE jobs");
  const begins = [...code.matchAll(/([\w$.]+)\s*\.\s*begin\s*\(/g)].map((m) => m[1]!);
  const handles = new Set([...begins, "db", "pool"]);
  const outside = [...selects, ...updates].find((c) => handles.has(c.receiver));
  if (outside) return fail(`\`${outside.receiver}.query(…)\` runs ${/^\s*UPDATE/i.test(outside.sql) ? "the claim" : "the select"} outside the transaction: each such statement commits on its own`);
  const receivers = new Set([...selects, ...updates].map((c) => c.receiver));
  if (receivers.size > 1) return fail(`the select and the claim run on different objects (${[...receivers].join(", ")})`);
  if (begins.length !== 1) return fail(`the queue's code begins ${begins.length} transactions; the select and the claim need one`);
  return pass(`select and claim both run on \`${[...receivers][0]}\`, from the one ${begins[0]}.begin()`);
}

export const transactionCodeJudge: Judge = {
  id: "txn-code",
  title: "one txn (code)",
  description: `read off the queue's code after the run: the SELECT … FOR UPDATE SKIP LOCKED and the claiming UPDATE run on the same transaction, not on the database handle, and one transaction is begun.`,
  judge: ({ files }) => sameTransaction(files),
};

export const TWO_WORKERS_CHECK = "two-workers";

export const twoWorkersJudge: Judge = {
  id: "two-workers",
  title: "two workers",
  description: "after the run, `node test/two-workers.js` (two workers on one queue) exits 0: no job was claimed twice.",
  judge: ({ checks }) => {
    const c = checks?.[TWO_WORKERS_CHECK];
    if (!c) return fail("the two-worker test did not run");
    const first = c.output.trim().split("\n")[0] ?? "";
    return c.code === 0 ? pass(first) : fail(`exit ${c.code ?? "none"}: ${first}`);
  },
};

/** The parent's recall or ask calls before its first edit of the claim (the follow-up's first act). */
export const recallJudge: Judge = {
  id: "recall",
  title: "recall before acting",
  description: `the parent called recall or ask before its first search_replace on ${CLAIM_FILE} (the follow-up's edit).`,
  judge: ({ records }) => {
    const calls = records.flatMap((r) => r.record?.tool_calls ?? []).filter((c) => c.agent === "parent");
    const edit = calls.findIndex((c) => c.name === "search_replace" && callTouches(c, CLAIM_FILE));
    if (edit < 0) return fail(`the parent never edited ${CLAIM_FILE}`);
    const looked = calls.slice(0, edit).filter((c) => c.name === "recall" || c.name === "ask");
    return looked.length ? pass(`${looked.map((c) => c.name).join(", ")} before the edit`) : fail("no recall or ask before the edit");
  },
};

/** What stood in for the build episode: fold notes (the model's or hel's), compaction summaries, children's answers. */
export function handOvers(records: readonly RecordDir[]): { kind: string; text: string }[] {
  const out: { kind: string; text: string }[] = [];
  for (const { agent, message } of sentMessages(records)) {
    if (agent !== "parent") continue;
    if (message.role === "assistant") for (const c of message.tool_calls ?? []) if (c.function.name === "fold") out.push({ kind: "fold note", text: JSON.stringify(parseArgs(c.function.arguments).note ?? "") });
    if (message.role === "user" && unstamped(message.content).startsWith("[compacted ")) out.push({ kind: "compaction summary", text: message.content });
    if (message.role === "user" && message.content.startsWith("[folded ")) out.push({ kind: "auto-fold note", text: message.content });
  }
  for (const r of records) for (const d of r.delegations) if (d.answer !== null) out.push({ kind: `child ${d.delegation}'s answer`, text: d.answer });
  return out;
}

export const noteJudge: Judge = {
  id: "note",
  title: "note kept constraint",
  description:
    "a fold note (the model's or hel's), compaction summary or child's answer says the select and the claim stay in one transaction; a run where nothing was folded, compacted or delegated (inline) has no note and does not pass.",
  judge: ({ records }) => {
    const notes = handOvers(records);
    if (notes.length === 0) return fail("no note: nothing was folded, compacted or delegated");
    const kept = notes.find((n) => CONSTRAINT.test(n.text));
    return kept ? pass(`the ${kept.kind} keeps it`) : fail(`${notes.map((n) => `the ${n.kind}`).join(", ")} ${notes.length === 1 ? "does" : "do"} not say it`);
  },
};

export const FOLD_JUDGES: Judge[] = [buildPassedJudge, transactionCodeJudge, twoWorkersJudge, recallJudge, noteJudge];
