import { describe, expect, it } from "vitest";
import type { ChildTranscript } from "../../../src/agent/children/child-transcript.js";
import { ANSI } from "../../../src/cli/term/kit/style.js";
import { formatChildTranscript, formatDelegations, formatSessionList, formatTranscript } from "../../../src/cli/term/transcript.js";
import { editsOf } from "../../../src/session/edits-by-call.js";
import { describeEdit } from "../../../src/changes/edit-diff.js";
import type { Message } from "../../../src/wire/messages.js";
import type { SessionSummary } from "../../../src/session/catalog.js";
import { ID_A, ID_B, ID_C, makeSnapshot } from "../../helpers/session-fixtures.js";

/** A subagent's transcript: the conversation it was handed, its task, then its own messages, the last its answer. */
function childTranscript(task: string, inherited: Message[], own: Message[]): ChildTranscript {
  const last = own.at(-1);
  return {
    number: 1,
    kind: "delegate",
    mode: "full",
    task,
    messages: [...inherited, { role: "user", content: `You are a subagent…\n\n${task}` }, ...own],
    answer: last?.role === "assistant" ? (last.content ?? null) : null,
    exit_reason: "completed",
    usage: { requests: 2, prompt_tokens: 1000, completion_tokens: 50, prompt_cache_hit_tokens: 900, prompt_cache_miss_tokens: 100 },
    cost_usd: 0.0012345,
  };
}

describe("formatTranscript", () => {
  it("prints the header, instructions and answers in full, one line per tool call with a glimpse of its result", () => {
    const snapshot = makeSnapshot("/home/me/project", ID_A);
    snapshot.messages.push(
      { role: "user", content: "Rename b to c.\nKeep the tests green." },
      {
        role: "assistant",
        content: "Renaming.",
        tool_calls: [
          { id: "call_2", type: "function", function: { name: "search_replace", arguments: JSON.stringify({ path: "src/a.ts", old: "b", new: "c" }) } },
          { id: "call_3", type: "function", function: { name: "read_file", arguments: "not json" } },
        ],
      },
      { role: "tool", tool_call_id: "call_3", content: "" },
      { role: "tool", tool_call_id: "call_2", content: `\n\nReplaced 1 occurrence in src/a.ts ${"x".repeat(200)}` },
      { role: "assistant", content: "Done: `b` is now `c`.\n\nTests pass." },
    );
    snapshot.children = 2;
    expect(formatTranscript(snapshot)).toBe(
      [
        `session  ${ID_A}`,
        "cwd      /home/me/project",
        "model    deepseek-flash (effort high), access edit",
        "created  2025-01-01T10:00:00.000Z",
        "updated  2025-01-01T10:05:00.000Z",
        "turns    2",
        "tokens   2,150 (prompt 2,000, cache hit 1,024, completion 150) in 2 requests",
        "children 2 subagent transcripts",
        "",
        "── instruction 1 ──",
        "What does a.ts export?",
        "",
        '→ read_file {"path":"src/a.ts"}',
        "  ← export const a = 1; (2 lines, 40 B)",
        "",
        "── answer ──",
        "It exports `a` and `b`.",
        "",
        "── instruction 2 ──",
        "Rename b to c.",
        "Keep the tests green.",
        "",
        "Renaming.",
        '→ search_replace {"path":"src/a.ts","old":"b","new":"c"}',
        `  ← Replaced 1 occurrence in src/a.ts ${"x".repeat(65)}… (3 lines, 236 B)`,
        "→ read_file not json",
        "  ← (empty, 0 lines, 0 B)",
        "",
        "── answer ──",
        "Done: `b` is now `c`.",
        "",
        "Tests pass.",
        "",
      ].join("\n"),
    );
  });

  it("cuts long arguments to one line", () => {
    const snapshot = makeSnapshot("/p", ID_A);
    const args = JSON.stringify({ path: "a.ts", old: "line\n".repeat(100), new: "" });
    snapshot.messages[2] = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "search_replace", arguments: args } }] };
    const line = formatTranscript(snapshot)
      .split("\n")
      .find((l) => l.startsWith("→"))!;
    expect(Array.from(line).length).toBeLessThanOrEqual(2 + "search_replace ".length + 160);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("the diffs of a session's edits", () => {
  const before = "export const a = 1;\nexport const b = 2;\n";
  const parentEdit = describeEdit("src/a.ts", before, before.indexOf("2;"), "2", "3");
  const childEdit = describeEdit("notes.md", "", 0, "", "hi\n", true);
  const snapshot = makeSnapshot("/p", ID_A, {
    edits: [
      { call_id: "call_9", edit: parentEdit },
      { call_id: "call_9", delegation: 1, edit: childEdit },
    ],
  });
  const args = JSON.stringify({ path: "src/a.ts", old_text: "2", new_text: "3" });
  snapshot.messages.push(
    { role: "user", content: "Make b 3." },
    { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "search_replace", arguments: args } }] },
    { role: "tool", tool_call_id: "call_9", content: "Edited src/a.ts: replaced line 2; the new text is at line 2." },
  );

  it("shows each edit under its call, numbered like the file, instead of the call's arguments", () => {
    expect(formatTranscript(snapshot)).toContain(
      [
        "── instruction 2 ──",
        "Make b 3.",
        "",
        "→ search_replace src/a.ts",
        "  1   export const a = 1;",
        "  2 - export const b = 2;",
        "  2 + export const b = 3;",
        "  ← Edited src/a.ts: replaced line 2; the new text is at line 2. (1 line, 60 B)",
      ].join("\n"),
    );
    expect(formatTranscript(snapshot, ANSI)).toContain("  \x1b[2m2\x1b[22m \x1b[31m- export const b = 2;\x1b[39m");
  });

  it("gives a subagent's transcript its own edits, though call ids repeat across agents", () => {
    const child = childTranscript(
      "Write notes.",
      [{ role: "system", content: "You are hel." }],
      [
        { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "search_replace", arguments: '{"path":"notes.md","old_text":"","new_text":"hi\\n"}' } }] },
        { role: "tool", tool_call_id: "call_9", content: "Created notes.md (1 line)." },
        { role: "assistant", content: "Written." },
      ],
    );
    expect(formatChildTranscript(child, editsOf(snapshot.edits, 1))).toContain(["→ search_replace notes.md", "  1 + hi", "  ← Created notes.md (1 line). (1 line, 26 B)"].join("\n"));
  });
});

describe("formatChildTranscript", () => {
  it("shows the task and the child's own work, not the conversation it inherited", () => {
    const child = childTranscript("Find where b is used.", makeSnapshot("/p", ID_A).messages, [
      { role: "assistant", content: null, tool_calls: [{ id: "k1", type: "function", function: { name: "read_file", arguments: '{"path":"src"}' } }] },
      { role: "tool", tool_call_id: "k1", content: "a.ts\nb.ts\n" },
      { role: "assistant", content: "Only in src/a.ts." },
    ]);
    expect(formatChildTranscript(child)).toBe(
      [
        "── subagent 1 (full) ── completed, 2 requests, 1,050 tokens, $0.0012",
        "task: Find where b is used.",
        "",
        '→ read_file {"path":"src"}',
        "  ← a.ts (2 lines, 10 B)",
        "",
        "── answer ──",
        "Only in src/a.ts.",
        "",
      ].join("\n"),
    );
    const stopped = { ...child, messages: child.messages.slice(0, -1), answer: null, exit_reason: "max_steps" as const };
    expect(formatChildTranscript(stopped)).toContain("── no answer (max_steps) ──");
  });
});

describe("formatDelegations", () => {
  const child = (over: Partial<ChildTranscript>): ChildTranscript => ({
    number: 1,
    kind: "delegate",
    mode: "task-only",
    task: "Change the port",
    messages: [],
    answer: "done",
    exit_reason: "completed",
    usage: { requests: 3, prompt_tokens: 12000, completion_tokens: 345, prompt_cache_hit_tokens: 11000, prompt_cache_miss_tokens: 1000 },
    cost_usd: 0.000588,
    ...over,
  });

  it("lists each child with its mode or kind, how it ended, its requests, tokens and cost", () => {
    const children = [
      child({}),
      child({
        number: 2,
        kind: "review",
        mode: null,
        task: "the worker's\nlocking",
        exit_reason: "completed",
        usage: { requests: 12, prompt_tokens: 300, completion_tokens: 20, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 300 },
        cost_usd: 0.00005,
      }),
      child({ number: 3, mode: "full", exit_reason: "token_budget", cost_usd: null, task: "x".repeat(80) }),
    ];
    expect(formatDelegations(children)).toBe(
      [
        "subagents (costs are estimates)",
        "  #1  task-only  completed      3 requests  12,345 tokens   $0.0006  Change the port",
        "  #2  review     completed     12 requests     320 tokens  <$0.0001  the worker's locking",
        `  #3  full       token_budget   3 requests  12,345 tokens            ${"x".repeat(59)}…`,
        "",
      ].join("\n"),
    );
    expect(formatDelegations([])).toBe("");
  });
});

describe("formatSessionList", () => {
  const now = new Date("2025-03-01T12:00:00.000Z");
  const summary = (over: Partial<SessionSummary>): SessionSummary => ({
    id: ID_A,
    updated_at: "2025-03-01T11:57:00.000Z",
    turns: 3,
    first_instruction: "Fix the failing test in parser.ts",
    tokens: 48_213,
    model: "deepseek-flash",
    in_use: false,
    written_by_hel: true,
    error: null,
    ...over,
  });

  it("aligns columns, newest first as given, with relative times and short ids", () => {
    const text = formatSessionList(
      [
        summary({}),
        summary({ id: ID_C, updated_at: "2025-02-27T09:00:00.000Z", turns: 12, tokens: 1_534_000, in_use: true, first_instruction: "Explain\n  the   build" }),
        summary({ id: "eeee5555-5555-4555-8555-555555555555", updated_at: "2024-12-24T09:00:00.000Z", turns: 1, tokens: 950, first_instruction: "x".repeat(300) }),
        summary({ id: "ffff6666-6666-4666-8666-666666666666", updated_at: null, turns: null, tokens: null, first_instruction: null, error: "session ffff… was written by another hel version" }),
      ],
      { now, width: 80 },
    );
    expect(text).toBe(
      [
        "ID        UPDATED     TURNS  TOKENS  FIRST INSTRUCTION",
        "aaaa1111  3 min ago       3     48k  Fix the failing test in parser.ts",
        "cccc3333  2 d ago        12    1.5M  [in use] Explain the build",
        `eeee5555  2024-12-24      1     950  ${"x".repeat(42)}…`,
        "ffff6666  -               -       -  (session ffff… was written by another hel …",
        "",
      ].join("\n"),
    );
  });

  it("shows more of the ids when 8 characters would not tell them apart", () => {
    const text = formatSessionList([summary({ id: ID_A }), summary({ id: "aaaa1111-9999-4999-8999-999999999999" })], { now });
    expect(text.split("\n")[1]).toMatch(/^aaaa1111-1 /);
    expect(text.split("\n")[2]).toMatch(/^aaaa1111-9 /);
    expect(formatSessionList([summary({ id: ID_B })], { now })).toContain("aaaa2222 ");
  });

  it("says so when there are no sessions", () => {
    expect(formatSessionList([], { now })).toBe("no sessions in this project — run hel with an instruction to start one\n");
  });
});
