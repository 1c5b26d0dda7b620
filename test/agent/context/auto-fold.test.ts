// The pure parts of auto-fold: which episode the latest results closed (and which they did not), the
// places /fold alone offers, the note read from the model's answer, and the view with the episode
// replaced by its [folded <handle>] message.
import { describe, expect, it } from "vitest";
import { parseAutoFoldNote, planAutoFold } from "../../../src/agent/context/auto-fold.js";
import { closedEpisode, foldChoices } from "../../../src/agent/context/episodes.js";
import type { Message } from "../../../src/wire/messages.js";

const LOG = "error TS2345: not assignable\n".repeat(200);
const run = (id: string, command: string, workdir?: string): Message => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "run_command", arguments: JSON.stringify({ command, ...(workdir ? { workdir } : {}) }) } }],
});
const result = (id: string, stamp: number, text: string): Message => ({ role: "tool", tool_call_id: id, content: `[#${stamp}] ${text}` });
const view = (...tail: Message[]): Message[] => [{ role: "system", content: "s" }, { role: "user", content: "[#1] make the build pass" }, ...tail];

describe("closedEpisode", () => {
  it("closes when the same command and workdir failed, then passed: from the first failing call to the end", () => {
    const v = view(
      run("a", "make"),
      result("a", 2, `exit code 2 · 1.00 s\n${LOG}`),
      run("b", "make", "./"),
      result("b", 3, "timed out after 120 s: the command and every process it started were ended"),
      run("c", "make"),
      result("c", 4, "exit code 0 · 1.00 s\nok"),
    );
    expect(closedEpisode(v, 100)).toEqual({ start: 2, command: "make", workdir: "", failures: 2, tokens: expect.any(Number) });
    // Too small, another command, a pass that never failed before, an episode behind a fold note: none.
    expect(closedEpisode(v, 1_000_000)).toBeNull();
    expect(closedEpisode(view(run("a", "make"), result("a", 2, `exit code 2 · 1 s\n${LOG}`), run("c", "make test"), result("c", 3, "exit code 0 · 1 s")), 100)).toBeNull();
    expect(closedEpisode(view(run("c", "make"), result("c", 2, "exit code 0 · 1 s")), 0)).toBeNull();
    expect(closedEpisode(view(run("a", "make", "web"), result("a", 2, `exit code 2 · 1 s\n${LOG}`), run("c", "make"), result("c", 3, "exit code 0 · 1 s")), 100)).toBeNull();
    const folded = view(run("a", "make"), result("a", 2, `exit code 2 · 1 s\n${LOG}`), { role: "user", content: "[folded ab12] hel folded a finished episode" }, run("c", "make"), result("c", 3, "exit code 0 · 1 s"));
    expect(closedEpisode(folded, 0)).toBeNull();
    // Once the model answered after the passing result, the episode is no longer the one just closed.
    expect(closedEpisode([...v, { role: "assistant", content: "done" }], 0)).toBeNull();
  });

  it("/fold alone offers the instructions and the closed episodes since the last note, oldest first", () => {
    const v = view(run("a", "make"), result("a", 2, `exit code 2 · 1 s\n${LOG}`), run("c", "make"), result("c", 3, "exit code 0 · 1 s"), { role: "assistant", content: "ok" }, { role: "user", content: "[#4] next" });
    expect(foldChoices(v).map((c) => [c.stamp, c.label])).toEqual([
      [1, "instruction: make the build pass"],
      [2, "`make` failed once, then passed"],
      [4, "instruction: next"],
    ]);
  });
});

describe("the note", () => {
  it("is read from JSON, fenced or not; anything else says why it is not the note", () => {
    const note = { changed: "a.ts", learned: "x", decided: "y", open: "nothing" };
    expect(parseAutoFoldNote(JSON.stringify(note))).toEqual({ ok: true, note });
    expect(parseAutoFoldNote("```json\n" + JSON.stringify(note) + "\n```")).toEqual({ ok: true, note });
    expect(parseAutoFoldNote("It passes.")).toEqual({ ok: false, reason: "no JSON object" });
    expect(parseAutoFoldNote("{changed: 1}")).toEqual({ ok: false, reason: "the JSON did not parse" });
    expect(parseAutoFoldNote('{"changed": "a"}')).toEqual({ ok: false, reason: "it needs the string fields changed, learned, decided and open" });
    expect(parseAutoFoldNote('{"changed": "", "learned": " ", "decided": "", "open": ""}')).toEqual({ ok: false, reason: "every field was empty" });
  });

  it("replaces the episode by one unstamped [folded <handle>] message; the span is archived as an automatic fold", () => {
    const v = view(run("a", "make"), result("a", 2, `exit code 2 · 1 s\n${LOG}`), run("c", "make"), result("c", 3, "exit code 0 · 1 s"));
    const episode = closedEpisode(v, 100)!;
    const plan = planAutoFold(v, episode, { changed: "a.ts", learned: "make passes with -j1 only", decided: "kept -j1", open: "nothing" }, []);
    expect(plan.view.slice(0, 2)).toEqual(v.slice(0, 2));
    expect(plan.view).toHaveLength(3);
    const handle = plan.file.handle;
    expect(plan.view[2]).toEqual({
      role: "user",
      content: `[folded ${handle}] hel folded a finished episode (#2–#3): \`make\` failed once, then passed. recall {"handle":"${handle}"} reads it back exactly; ask answers questions about it. Carry on with the task.\nchanged: a.ts\nlearned: make passes with -j1 only\ndecided: kept -j1\nopen: nothing\nfiles: none`,
    });
    expect(plan.file).toMatchObject({ kind: "fold", auto: true, first_stamp: 2, last_stamp: 3, stamps: [2, 3], messages: v.slice(2) });
  });
});
