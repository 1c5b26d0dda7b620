// The terminal's table of tool looks: a search shown once it ends, as one line made from its result's
// details (never from its text), and a call's arguments read once.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { callArgs, lookOf, toolCallLabel } from "../../../src/cli/term/tool-views.js";
import type { SearchDetails } from "../../../src/tools/types.js";

type ToolEnd = Extract<AgentEvent, { type: "tool_end" }>;
const end = (name: string, result: string, details?: SearchDetails, isError = false): ToolEnd => ({
  agent: "parent",
  type: "tool_end",
  callId: "c1",
  name,
  isError,
  result,
  ...(details ? { details } : {}),
});
const summary = (name: string, args: object, ended: ToolEnd) => lookOf(name).summary!(callArgs(JSON.stringify(args)), ended);
const search = (matches: number, files: number, more: boolean, unit: "line" | "file" = "line"): SearchDetails => ({ kind: "search", matches, unit, files, more });

describe("a search's line", () => {
  it("counts grep's matches from the details, whatever the text says", () => {
    expect(summary("grep", { pattern: "^hit", path: "src", glob: "*.ts" }, end("grep", "x\n[1 match in 1 file]", search(1234, 4, true)))).toBe('grep "^hit" in src (*.ts) — 1,234 matches in 4 files shown, more follow');
    expect(summary("grep", { cursor: "grep1.x" }, end("grep", "", search(50, 1, false)))).toBe("grep (continued) — 50 matches in 1 file");
    // A files_only search continued by its cursor alone still counts files.
    expect(summary("grep", { cursor: "grep1.x" }, end("grep", "", search(3, 3, false, "file")))).toBe("grep (continued) — 3 matching files");
  });

  it("counts find_files' paths, those listed of those matching", () => {
    expect(summary("find_files", { pattern: "*.ts" }, end("find_files", "", search(3, 3, false, "file")))).toBe('find_files "*.ts" — 3 files, newest first');
    expect(summary("find_files", { pattern: "*.ts", path: "." }, end("find_files", "", search(1157, 100, true, "file")))).toBe('find_files "*.ts" — 100 of 1,157 files shown, newest first');
  });

  it("says what the result says when nothing was found, and that it failed when it did", () => {
    const none = "No matches for /x/ in the project (3 files searched).\nsecond line";
    expect(summary("grep", { pattern: "x" }, end("grep", none, search(0, 0, false)))).toBe('grep "x" — No matches for /x/ in the project (3 files searched).');
    expect(summary("grep", { pattern: "(" }, end("grep", "Error: bad pattern", undefined, true))).toBe('grep "(" — failed');
    expect(lookOf("grep").summary!(callArgs("not json"), end("grep", "Error: x", undefined, true))).toBe("grep — failed");
  });
});

describe("a call's arguments", () => {
  it("are read once, as an object or not at all", () => {
    expect(callArgs('{"path":"a"}')).toEqual({ path: "a" });
    expect(callArgs("[1]")).toBeNull();
    expect(callArgs("not json")).toBeNull();
    // Given the arguments already read, the label does not read them again.
    expect(toolCallLabel("search_replace", "ignored", { path: "b.ts" })).toBe("search_replace b.ts");
  });
});
