// The todo list (src/agent/todo.ts) in whole conversations against the simulator: a todo call's result
// as the model gets it, its event in --json-events, the snapshot that keeps it and the resume that
// shows it again, a PreToolUse hook that sees the call, a child's list that stays its own; and the
// terminal's compact view of a list (src/cli/term/todo-view.ts).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../src/wire/messages.js";
import { todoLines } from "../../src/cli/term/todo-view.js";
import { runInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { sessionIdOf, simulators } from "../helpers/simulators.js";

const sim = simulators();
const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const LIST = [
  { text: "read the parser", status: "done" },
  { text: "fix the off-by-one", status: "in_progress" },
  { text: "run the tests", status: "pending" },
] as const;

const jsonLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("todo", () => {
  it("replaces the list: the model gets the tally, --json-events an event, the snapshot keeps it, and -c shows it again", async () => {
    const dir = await tempProject();
    const s = await sim({ script: [{ tool_calls: [call("todo", { items: LIST })] }, { content: "working on it" }, { content: "resumed" }] });
    const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "--json-events", "plan the fix"], baseUrl: s.url });
    expect(run.code).toBe(0);
    const second = s.requests[1]!.body as ChatRequest;
    expect(second.messages.at(-1)).toEqual({ role: "tool", tool_call_id: expect.any(String), content: "[#2] todo list: 1 done, 1 in progress, 1 pending" });
    const todo = (s.requests[0]!.body as ChatRequest).tools!.find((t) => t.function.name === "todo")!;
    expect(todo.function.description).toBe("Set the user's checklist; one item in_progress.");
    expect(jsonLines(run.stdout).filter((e) => e.type === "todo")).toEqual([{ type: "todo", agent: "parent", items: LIST }]);

    const id = (jsonLines(run.stdout).find((e) => e.type === "turn_end") as { session_id: string }).session_id;
    const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));
    expect(snapshot.todo).toEqual(LIST);

    const resumed = await runInProcess({ args: ["-C", dir, "--effort", "none", "-c", "go on"], baseUrl: s.url });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(["todo: 1 done, 1 in progress, 1 pending", "  ✓ read the parser", "  ▸ fix the off-by-one", "  · run the tests"].join("\n"));
  });

  it("a malformed list is refused with what to send instead, and the list is unchanged", async () => {
    const dir = await tempProject();
    const s = await sim({ script: [{ tool_calls: [call("todo", { items: [{ text: "x", status: "started" }] })] }, { content: "ok" }] });
    const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "--json-events", "go"], baseUrl: s.url });
    expect(run.code).toBe(0);
    const result = (s.requests[1]!.body as ChatRequest).messages.at(-1)!.content as string;
    expect(result).toContain("Error: invalid arguments for todo:");
    expect(result).toContain("items.0.status");
    expect(jsonLines(run.stdout).some((e) => e.type === "todo")).toBe(false);
  });

  it("a PreToolUse hook sees a todo call, and may block it", async () => {
    const dir = await tempProject();
    const log = join(await tempProject(), "payload.json");
    const hook = join(await tempProject(), "hook.mjs");
    await writeFile(hook, `import { readFileSync, writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(log)}, readFileSync(0, "utf8"));\nprocess.stderr.write("no lists here");\nprocess.exit(2);\n`);
    await mkdir(join(dir, ".hel"));
    await writeFile(join(dir, ".hel", "config.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "todo", command: `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}` }] } }));
    const s = await sim({ script: [{ tool_calls: [call("todo", { items: LIST })] }, { content: "ok" }] });
    const run = await runInProcess({ args: ["-C", dir, "--trust", "--effort", "none", "--json-events", "go"], baseUrl: s.url });
    expect(run.code).toBe(0);
    expect(JSON.parse(await readFile(log, "utf8"))).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "todo", tool_input: { items: LIST } });
    expect((s.requests[1]!.body as ChatRequest).messages.at(-1)!.content).toBe("[#2] Blocked by a PreToolUse hook: no lists here");
    expect(jsonLines(run.stdout).some((e) => e.type === "todo")).toBe(false);
  });

  it("a child's list is its own: its event names its delegation, and the session keeps only the parent's", async () => {
    const dir = await tempProject();
    const mine = [{ text: "delegate the search", status: "in_progress" }];
    const childs = [{ text: "grep for it", status: "done" }];
    const s = await sim({
      script: [{ tool_calls: [call("todo", { items: mine })] }, { tool_calls: [call("delegate_task", { task: "find it" })] }, { tool_calls: [call("todo", { items: childs })] }, { content: "found" }, { content: "done" }],
    });
    const run = await runInProcess({ args: ["-C", dir, "--effort", "none", "--delegate", "task-only", "--json-events", "go"], baseUrl: s.url });
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).filter((e) => e.type === "todo")).toEqual([
      { type: "todo", agent: "parent", items: mine },
      { type: "todo", agent: "child", delegation: 1, items: childs },
    ]);
    const id = sessionIdOf(run.stderr) ?? (jsonLines(run.stdout).find((e) => e.type === "turn_end") as { session_id: string }).session_id;
    expect(JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).todo).toEqual(mine);
  });
});

describe("the terminal's view of a list", () => {
  const item = (n: number, status: "pending" | "in_progress" | "done") => ({ text: `step ${n}`, status });

  it("shows a short list whole under its tally", () => {
    expect(todoLines([item(1, "done"), item(2, "in_progress")])).toEqual(["todo: 1 done, 1 in progress, 0 pending", "  ✓ step 1", "  ▸ step 2"]);
    expect(todoLines([])).toEqual([]);
  });

  it("keeps a long list to a few lines around the step in progress, and counts the rest", () => {
    const items = [item(1, "done"), item(2, "done"), item(3, "done"), item(4, "in_progress"), item(5, "pending"), item(6, "pending"), item(7, "pending")];
    expect(todoLines(items)).toEqual(["todo: 3 done, 1 in progress, 3 pending", "  ✓ step 3", "  ▸ step 4", "  · step 5", "  … 2 more"]);
  });

  it("makes the model's words safe and one line", () => {
    expect(todoLines([{ text: "evil\x1b]0;title\x07\nnext", status: "pending" }])[1]).toBe("  · evil?]0;title? next");
  });
});
