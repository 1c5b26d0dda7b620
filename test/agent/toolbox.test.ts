// The catalogue of tools: the lists the flags take from it, the tool list made from it, the refusals
// children read from its traits, and that a tool's name is written in the catalogue and in the tool's
// own file, nowhere else.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { assembleTools, type ToolChoice, type ToolDeps } from "../../src/agent/children/assemble-tools.js";
import type { Children } from "../../src/agent/children/children.js";
import { childTools } from "../../src/agent/children/child-tools.js";
import { CHILD_KIND_ROWS } from "../../src/agent/children/kinds.js";
import type { ArchiveIndex } from "../../src/agent/context/archive-index.js";
import { DEFAULT_TOOLS, DELEGATE_TOOLS, SELECTABLE_TOOLS, TOOLBOX } from "../../src/agent/toolbox.js";
import { escalatingRunCommandTool, runCommandTool } from "../../src/tools/command/run-command.js";
import { readFileTool } from "../../src/tools/file/read-file.js";
import type { Tool, ToolContext } from "../../src/tools/types.js";

const deps: ToolDeps = {
  archive: {} as ArchiveIndex,
  parentMessages: () => [],
  children: {} as Children,
  askBudgetTokens: 1000,
  changes: async () => ({ files: [] }) as never,
};
const everything: ToolChoice = { tools: SELECTABLE_TOOLS, access: "edit", delegate: "full" };
const names = (tools: readonly Tool[]) => tools.map((t) => t.name);

describe("the catalogue", () => {
  it("gives --tools its names and its default, and --delegate its two tools", () => {
    expect(SELECTABLE_TOOLS).toEqual(["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo", "job_output", "job_kill"]);
    expect(DEFAULT_TOOLS).toEqual(["read_file", "search_replace", "run_command", "grep", "find_files", "fold", "recall", "ask", "todo", "job_output", "job_kill"]);
    expect(DELEGATE_TOOLS).toEqual(["delegate_task", "review_changes"]);
  });

  it("makes every tool it declares, under its own name, in the order chosen, then those --delegate adds", () => {
    expect(names(assembleTools(everything, deps))).toEqual(Object.keys(TOOLBOX));
    expect(names(assembleTools({ tools: ["grep", "read_file"], access: "edit", delegate: null }, deps))).toEqual(["grep", "read_file"]);
    expect(assembleTools({ tools: ["read_file"], access: "edit", delegate: null }, deps)[0]).toBe(readFileTool);
    // --delegate without a baseline to review has nothing to offer.
    expect(names(assembleTools({ tools: [], access: "edit", delegate: "full" }, { ...deps, changes: null }))).toEqual([]);
    expect(() => assembleTools({ tools: ["rm"], access: "edit", delegate: null }, deps)).toThrow(/no tool "rm"/);
  });

  it("offers run_command's escalation only under --approval on-request and edit access", () => {
    const runCommand = (choice: Partial<ToolChoice>) => assembleTools({ tools: ["run_command"], access: "edit", delegate: null, ...choice }, deps)[0];
    expect(runCommand({ approval: "on-request" })).toBe(escalatingRunCommandTool);
    for (const choice of [{}, { approval: "never" as const }, { approval: "on-request" as const, access: "full" as const }, { approval: "on-request" as const, access: "read-only" as const }]) {
      expect(runCommand(choice)).toBe(runCommandTool);
    }
  });

  it("leaves out what only edits under read-only access, and runs consecutive delegations together", () => {
    const readOnly = assembleTools({ ...everything, access: "read-only" }, deps);
    expect(names(readOnly)).toEqual(Object.keys(TOOLBOX).filter((name) => name !== "search_replace"));
    expect(readOnly.filter((t) => t.concurrent).map((t) => t.name)).toEqual(["delegate_task"]);
  });
});

describe("a child's tools", () => {
  const tools = assembleTools(everything, deps);
  const ctx = {} as ToolContext;
  /** What each refused tool answers, by name; the others are the parent's own. */
  const refusals = async (kind: "delegate" | "review" | "ask") => {
    const out: Record<string, string> = {};
    for (const [i, tool] of childTools(tools, CHILD_KIND_ROWS[kind]).entries()) {
      if (tool === tools[i]) continue;
      out[tool.name] = await tool.run({}, ctx).then(
        () => "ran",
        (e: Error) => e.message.split(" ").slice(0, 4).join(" "),
      );
    }
    return out;
  };

  it("keeps the parent's list and its definitions, refusing what the kind of child may not do", async () => {
    expect(names(childTools(tools, CHILD_KIND_ROWS.delegate))).toEqual(names(tools));
    const noChildren = "a subagent cannot delegate";
    const noJobs = { job_output: "a subagent has no", job_kill: "a subagent has no" };
    expect(await refusals("delegate")).toEqual({ ...noJobs, delegate_task: noChildren, review_changes: noChildren });
    expect(await refusals("review")).toEqual({ search_replace: "you are the reviewer:", ...noJobs, delegate_task: noChildren, review_changes: noChildren });
    const noArchive = "you are answering a";
    expect(await refusals("ask")).toEqual({ fold: noArchive, ask: noArchive, ...noJobs, delegate_task: noChildren, review_changes: noChildren });
  });
});

describe("a tool's name", () => {
  const root = join(import.meta.dirname, "../../src");
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).map((f) => join(root, f));
  /** Code without its comments: a comment may name a tool as prose does. */
  const code = (file: string) =>
    readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .split("\n")
      .map((line) => (line.trimStart().startsWith("//") ? "" : line));
  // The same words with other meanings: an event's type, an archived span's kind, a kind of child
  // (and its row in children/kinds.ts), the todo list's event, the memory setting's value "ask", the
  // exported page's class of a fold note, and the interactive prompt's /fold, which asks for the tool by its name.
  const HOMONYM = /\b(type|kind|mode)\s*(===|!==|:)\s*"(fold|ask|todo)"|case "(fold|todo)"|EventOf<"fold"|_(KINDS|MODES) = \[|z\.enum\(\["fold"|z\.literal\("todo"\)|default: "ask"|class="fold"/;
  const SLASH_FOLD = 'cli/slash-commands.ts:    name: "fold",';
  const ASK_KIND_ROW = "agent/children/kinds.ts:  ask: {";

  it.each(Object.keys(TOOLBOX))("%s is written in the catalogue and in its own file only", (name) => {
    const uses: string[] = [];
    for (const file of files) {
      for (const line of code(file)) {
        // The name as a string, or as the key of a table by tool (a value that is a string or an object).
        if (!new RegExp(`["']${name}["']|(^|[\\s{,])${name}\\s*:\\s*["'{]`).test(line) || HOMONYM.test(line)) continue;
        const use = `${relative(root, file)}:${line}`;
        if (use !== SLASH_FOLD && use !== ASK_KIND_ROW) uses.push(use);
      }
    }
    const declared = uses.filter((use) => use.includes(`name: "${name}"`) || use.includes(`NAME = "${name}"`));
    expect(declared).toHaveLength(1);
    const own = declared[0]!.split(":")[0]!;
    expect(uses.filter((use) => !use.startsWith("agent/toolbox.ts:") && !use.startsWith(`${own}:`))).toEqual([]);
  });
});
