// fold, planned as a pure function of the view: the span it archives, the note it returns, and an
// error result that says what to do for each way a fold can be wrong.
import { describe, expect, it } from "vitest";
import type { ArchiveEntry } from "../../../src/agent/archive.js";
import { askContext } from "../../../src/agent/children/ask.js";
import { foldedView, planFold, touchedFiles, type FoldArgs } from "../../../src/agent/context/fold.js";
import type { AssistantMessage, Message, ToolCall } from "../../../src/wire/messages.js";
import { toolCall } from "../../helpers/fake-model.js";

const NOTE: FoldArgs["note"] = { changed: "nothing", learned: "select and claim must stay in one transaction", decided: "kept SKIP LOCKED", open: "nothing" };
const system: Message = { role: "system", content: "You are hel." };
const user = (n: number, text: string): Message => ({ role: "user", content: `[#${n}] ${text}` });
const calls = (...list: ToolCall[]): AssistantMessage => ({ role: "assistant", content: null, reasoning_content: "r", tool_calls: list });
const result = (id: string, n: number, text: string): Message => ({ role: "tool", tool_call_id: id, content: `[#${n}] ${text}` });
const read = (id: string, path: string) => toolCall(id, "read_file", { path });
const foldCall = (since: string, note = NOTE) => toolCall("call_fold", "fold", { since, note });

/** [system, #1 user, read a (#2), read b and c in one message (#3, #4), the fold call]. */
function view(since: string, note = NOTE): { view: Message[]; call: ToolCall } {
  const call = foldCall(since, note);
  return {
    call,
    view: [system, user(1, "fix the build"), calls(read("r1", "a.ts")), result("r1", 2, "a"), calls(read("r2", "./b.ts"), read("r3", "a.ts")), result("r2", 3, "b"), result("r3", 4, "a again"), calls(call)],
  };
}
const plan = (since: string, archived: ArchiveEntry[] = [], note = NOTE) => {
  const v = view(since, note);
  return planFold(v.view, v.call, { since, note }, archived);
};

describe("a fold", () => {
  it("archives from the assistant message whose call the named result answers up to the fold call, and returns the note with its handle and files", () => {
    const v = view("#3");
    const p = planFold(v.view, v.call, { since: "#3", note: NOTE }, []);
    if (!p.ok) throw new Error(p.error);
    expect([p.start, p.end]).toEqual([4, 7]);
    expect(p.file).toMatchObject({ kind: "fold", first_stamp: 3, last_stamp: 4, stamps: [3, 4], files: ["b.ts", "a.ts"] });
    expect(p.file.messages).toEqual(v.view.slice(4, 7));
    expect(p.file.handle).toMatch(/^[0-9a-f]{4}$/);
    expect(p.result).toBe(
      [
        `Folded #3–#4 into handle: ${p.file.handle} (recall reads it back exactly; ask answers questions about it).`,
        "changed: nothing",
        "learned: select and claim must stay in one transaction",
        "decided: kept SKIP LOCKED",
        "open: nothing",
        "files: b.ts, a.ts",
      ].join("\n"),
    );
    // Once the call has its result, the new view is the old one without the span.
    const answered = [...v.view, result("call_fold", 5, p.result)];
    expect(foldedView(answered, p)).toEqual([...v.view.slice(0, 4), v.view[7], answered[8]]);
  });

  it("since a user message starts at that message; a handle already taken is lengthened", () => {
    const first = plan("#1");
    if (!first.ok) throw new Error(first.error);
    expect(first.start).toBe(1);
    const again = plan("#1", [{ ...first.file, messages: undefined, stamps: undefined } as unknown as ArchiveEntry]);
    if (!again.ok) throw new Error(again.error);
    expect(again.file.handle).toBe(first.file.handle + again.file.handle.slice(4));
    expect(again.file.handle).toHaveLength(5);
  });
});

describe("a fold that cannot be done says what to do instead", () => {
  it.each([
    ["no stamp", "the third one", /since must name a stamp such as "#12".*not "the third one"/],
    ["a stamp no message has", "#99", /no message in the conversation has the stamp #99\. Call fold again with since set to a stamp you can see, like #4/],
  ])("%s", (_name, since, error) => {
    expect(plan(since)).toEqual({ ok: false, error: expect.stringMatching(error) });
  });

  it("a stamp inside a span already archived names that span", () => {
    const archived: ArchiveEntry = { handle: "b2e4", kind: "fold", first_stamp: 5, last_stamp: 9, note: "n", files: [] };
    expect(plan("#7", [archived])).toEqual({ ok: false, error: "#7 is inside the span already archived as b2e4. Fold since a stamp after its note." });
  });

  it("a stamp at or before an earlier fold note or a compaction summary", () => {
    const earlierFold = toolCall("call_f0", "fold", { since: "#1", note: NOTE });
    const withNote: Message[] = [system, user(1, "x"), calls(earlierFold), result("call_f0", 2, "Folded #1 into handle: abcd"), user(3, "next"), calls(read("r9", "c.ts")), result("r9", 4, "c")];
    const call = foldCall("#2");
    const before = planFold([...withNote, calls(call)], call, { since: "#2", note: NOTE }, []);
    expect(before).toEqual({ ok: false, error: "#2 is at or before an earlier fold note or compaction summary; a fold cannot cross one. Fold since a stamp after it, such as #3." });
    const after = planFold([...withNote, calls(call)], call, { since: "#3", note: NOTE }, []);
    expect(after.ok).toBe(true);

    const compacted: Message[] = [system, { role: "user", content: "[compacted c0ffee] summary" }, user(7, "go on"), calls(read("r1", "a.ts")), result("r1", 8, "a")];
    const c = foldCall("#7");
    expect(planFold([...compacted, calls(c)], c, { since: "#7", note: NOTE }, []).ok).toBe(true);
    const crossing: Message[] = [system, user(6, "old"), { role: "user", content: "[compacted c0ffee] summary" }, user(7, "go on")];
    const d = foldCall("#6");
    expect(planFold([...crossing, calls(d)], d, { since: "#6", note: NOTE }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/^#6 is at or before an earlier fold note or compaction summary/) });
  });

  it("fold with another call in its message", () => {
    const call = foldCall("#2");
    const v: Message[] = [system, user(1, "x"), calls(read("r1", "a.ts")), result("r1", 2, "a"), calls(call, read("r2", "b.ts"))];
    expect(planFold(v, call, { since: "#2", note: NOTE }, [])).toEqual({
      ok: false,
      error: "fold must be the only tool call in its message. Wait for the other calls' results, then call fold alone.",
    });
  });

  it("an empty note", () => {
    const empty = { changed: " ", learned: "", decided: "", open: "\n" };
    expect(plan("#2", [], empty)).toMatchObject({ ok: false, error: expect.stringMatching(/^the note is empty\. Call fold again with a note that says what changed/) });
  });

  it("a note field over 4,000 characters", () => {
    const long = { ...NOTE, learned: "x".repeat(4001), open: "y".repeat(1_000_000) };
    expect(plan("#2", [], long)).toEqual({
      ok: false,
      error:
        "the note is too long: learned has 4,001, open has 1,000,000 characters, and each field may hold at most 4,000. The note stands in for the episode in every later request: call fold again with each field cut to what must stay in view (caveats, exact names, paths, commands); recall reads the archived span back in full.",
    });
    expect(plan("#2", [], { ...NOTE, learned: "x".repeat(4000) })).toMatchObject({ ok: true });
  });

  it("a span that would leave a call without its result, or a result without its call", () => {
    // A conversation hel would not build, but a fold must still never break the pairing.
    const call = foldCall("#2");
    const broken: Message[] = [system, user(1, "x"), result("r0", 2, "orphan"), calls(call)];
    expect(planFold(broken, call, { since: "#2", note: NOTE }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/would separate a tool call from its result/) });
  });
});

it("the files a span touched come from read_file, search_replace and grep paths and run_command's workdir", () => {
  const span: Message[] = [
    calls(read("a", "./src/x.ts"), toolCall("b", "search_replace", { path: "src/y.ts", old_text: "a", new_text: "b" })),
    calls(toolCall("c", "grep", { pattern: "x", path: "lib" }), toolCall("d", "run_command", { command: "make", workdir: "build" }), toolCall("e", "read_file", { path: "src/x.ts" })),
    { role: "assistant", content: null, tool_calls: [{ id: "f", type: "function", function: { name: "read_file", arguments: "{not json" } }] },
  ];
  expect(touchedFiles(span)).toEqual(["src/x.ts", "src/y.ts", "lib", "build"]);
});

it("ask on a compaction's span sends the system message and as much of the span as fits, newest last, never starting at a result", () => {
  const span: Message[] = [user(1, "x".repeat(4000)), calls(read("r1", "a.ts")), result("r1", 2, "y".repeat(4000)), calls(read("r2", "b.ts")), result("r2", 3, "short"), { role: "assistant", content: "done" }];
  const file = { handle: "c0ff", kind: "compaction" as const, first_stamp: 1, last_stamp: 3, note: "summary", files: [], stamps: [1, 2, 3], messages: span };
  const view: Message[] = [system, { role: "user", content: "[compacted c0ff] summary" }];
  // Room for the last three messages and the call before them, not for the long result.
  expect(askContext(view, file, 400)).toEqual([system, ...span.slice(3)]);
  expect(askContext(view, file, 100_000)).toEqual([system, ...span]);
});
