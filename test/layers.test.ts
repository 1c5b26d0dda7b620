import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { doorViolations, importCycles, importGraph, layerOf, layerViolations, reachViolations, readSources, roomGraph } from "./helpers/import-graph.js";

// src/ from the bottom up. The files at the top of src/ (zod.ts, errors.ts, clock.ts) are beneath
// everything; bin/ is the launcher, which no module imports.
// changes/ is what a session changed in the project (baselines, diffs), read by tools, reviews and views;
// its checkpoints write through fs/ (beneath the project, hel's state folder).
// worktrees/ makes, merges and removes the git worktrees isolated writers work in, on changes/ (its git).
// hooks/ runs the user's programs as commands run, for the agents that call them at fixed points;
// mcp/ makes the MCP servers' tools, on tools/ and beneath the agent that offers them.
// settings/ is what a run is told (flags, config files, trust); resources/ the user's and the project's own
// files (rules, skills, agents, command files, hooks, MCP servers); conversation/ assembles one
// conversation from them for every front end in cli/, which hands in its readers. view/ is a saved
// session as a document and its renderings (the page, Markdown, ATIF), for export and the viewer.
const LAYERS = [["."], ["wire", "fs"], ["changes"], ["worktrees"], ["model", "tools"], ["hooks", "mcp"], ["agent"], ["session", "record", "memory"], ["resources", "settings"], ["conversation", "view"], ["cli"], ["bin"]];
// Inside a room, the same rule between its folders; "." is the room's own files. In agent/ these are
// the vocabulary every part speaks (events, usage, meter, stamps, requests, the archived span).
const ROOMS: Record<string, string[][]> = {
  agent: [["."], ["context"], ["loop"], ["children"]],
  tools: [["."], ["file", "search", "command"]],
  // The input modes drive the conversation the root's files assemble; run.ts only chooses a mode.
  // acp/ is the editor's mode, beside them: main.ts starts it for `hel acp`. web/ is `hel web`'s server,
  // which web-command.ts starts.
  cli: [["term", "json", "web"], ["."], ["modes", "acp"], ["run.ts"], ["main.ts"]],
  // kit/ is the terminal's toolkit (style, the live region, markdown, the prompt and its history, the
  // diff view); the root's files are the views of hel's events, tools and sessions, made with it.
  "cli/term": [["kit"], ["."]],
};
// The terminal toolkit knows no agent, tool or session, not even through a file it imports.
const KIT = "cli/term/kit";
const UNKNOWN_TO_KIT = ["agent", "tools", "session"];
// The search engine and its libraries load on a search's first call: only the tools' faces are its door.
const SEARCH_DOORS = ["tools/search/tools.ts", "tools/search/args.ts", "tools/search/format.ts"];
const searchEngine = (file: string) => file.startsWith("tools/search/") && !SEARCH_DOORS.includes(file);
// The assembly of one conversation stays a list of named parts, each made by a module of its own: the
// door every capability comes in through, kept short so that a new one adds a line, not a block.
const ASSEMBLY = { file: "conversation/conversation.ts", name: "openConversation", maxLines: 120, maxImportLines: 26 };

/** The lines of the top-level function `name`, from its signature to its closing brace, and the file's import lines; null: no such function. */
function sizeOf(text: string, name: string): { lines: number; importLines: number } | null {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => new RegExp(`^export (async )?function ${name}\\b`).test(line));
  const end = lines.findIndex((line, at) => at > start && line === "}");
  if (start < 0 || end < 0) return null;
  return { lines: end - start + 1, importLines: lines.filter((line) => /^import\b/.test(line)).length };
}

describe("the import graph of src/", () => {
  const sources = readSources(resolve(import.meta.dirname, "../src"));
  const graph = importGraph(sources);

  it("is read whole: every relative import names a file, dynamic imports included", () => {
    expect(graph.unresolved).toEqual([]);
    const edges = graph.edges.map((e) => `${e.from} → ${e.to}`);
    expect(edges).toContain("cli/main.ts → cli/run.ts"); // await import("./run.js")
    expect(edges).toContain("bin/hel.cts → bin/compile-cache.cts");
  });

  it("points only down the layers", () => {
    expect(layerViolations(graph, LAYERS)).toEqual([]);
  });

  it("has no cycle between files", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it.each(Object.entries(ROOMS))("points only down inside %s/", (room, layers) => {
    expect(layerViolations(roomGraph(graph, room), layers)).toEqual([]);
  });

  it("keeps the terminal kit free of agent, tools and session", () => {
    expect(reachViolations(graph, KIT, UNKNOWN_TO_KIT)).toEqual([]);
  });

  it("reaches the search engine only through the tools' faces, and only on first use", () => {
    expect(doorViolations(graph, "tools/search", SEARCH_DOORS, searchEngine)).toEqual([]);
  });

  it(`assembles a conversation below the front ends: conversation/ imports nothing from cli/, and ${ASSEMBLY.name} is at most ${ASSEMBLY.maxLines} lines, with at most ${ASSEMBLY.maxImportLines} import lines`, () => {
    expect(graph.edges.filter((e) => layerOf(e.from) === "conversation" && layerOf(e.to) === "cli")).toEqual([]);
    const size = sizeOf(sources.get(ASSEMBLY.file) ?? "", ASSEMBLY.name);
    expect(size).not.toBeNull();
    expect(size!.lines).toBeLessThanOrEqual(ASSEMBLY.maxLines);
    expect(size!.importLines).toBeLessThanOrEqual(ASSEMBLY.maxImportLines);
  });
});

// The repository around src/: the product at the bottom (beside the build scripts it never imports),
// the simulator on it, and the evals and the benchmark, which drive both.
const REPO_LAYERS = [["scripts"], ["src"], ["sim"], ["evals", "bench"]];

describe("the import graph of the whole repository", () => {
  const root = resolve(import.meta.dirname, "..");
  const files = new Map<string, string>();
  for (const dir of REPO_LAYERS.flat()) for (const [file, text] of readSources(resolve(root, dir))) files.set(`${dir}/${file}`, text);
  const graph = importGraph(files);

  it("is read whole", () => {
    expect(graph.unresolved).toEqual([]);
    expect(graph.edges.map((e) => `${e.from} → ${e.to}`)).toContain("evals/summary.ts → evals/results.ts");
  });

  it("points only down: src/ never imports the simulator, the evals or the benchmark", () => {
    expect(layerViolations(graph, REPO_LAYERS)).toEqual([]);
  });

  it("has no cycle between files anywhere", () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe("the import graph reader", () => {
  const files = new Map([
    [
      "low/a.ts",
      [
        'import type { B } from "../high/b.js";',
        '// import { c } from "./c.js";',
        "const text = \"import('./c.js')\";",
        'export { d } from "./d.js";',
        "const e = await import('./e.js');",
        'import { gone } from "./missing.js";',
      ].join("\n"),
    ],
    ["low/c.ts", ""],
    ["low/d.ts", 'import { a } from "./a.js";'],
    ["low/e.ts", ""],
    ["high/b.ts", 'import { f } from "../f.cjs";\nimport { g } from "../other/g.js";'],
    ["f.cts", 'import x from "node:fs";\nimport y from "zod";'],
    ["other/g.ts", ""],
  ]);
  const graph = importGraph(files);

  it("sees type-only, re-exporting and dynamic imports, but not those in comments or strings", () => {
    expect(graph.edges).toEqual([
      { from: "low/a.ts", to: "high/b.ts", line: 1, dynamic: false },
      { from: "low/a.ts", to: "low/d.ts", line: 4, dynamic: false },
      { from: "low/a.ts", to: "low/e.ts", line: 5, dynamic: true },
      { from: "low/d.ts", to: "low/a.ts", line: 1, dynamic: false },
      { from: "high/b.ts", to: "f.cts", line: 1, dynamic: false },
      { from: "high/b.ts", to: "other/g.ts", line: 2, dynamic: false },
    ]);
    expect(graph.unresolved).toEqual(["low/a.ts:6 → ./missing.js"]);
  });

  it("reports an import that does not point down, and a folder missing from the table", () => {
    expect(layerViolations(graph, [["."], ["low"], ["high"]])).toEqual(["low/a.ts:1 imports high/b.ts: low/ may not import high/, which is not below it", "other/ has no place in the layer table"]);
    expect(layerViolations(graph, [["."], ["low", "high", "other"]])).toEqual([
      "low/a.ts:1 imports high/b.ts: low/ may not import high/, which is not below it",
      "high/b.ts:2 imports other/g.ts: high/ may not import other/, which is not below it",
    ]);
    expect(layerViolations(graph, [["."], ["other"], ["high"], ["low"]])).toEqual([]);
    // A file at the top may be a layer of its own, above the folders beside it.
    expect(layerViolations(graph, [["other"], ["high"], ["low"], ["f.cts"]])).toEqual(["high/b.ts:1 imports f.cts: high/ may not import f.cts, which is not below it"]);
  });

  it("reports each file of a room that reaches a forbidden folder, by the shortest path of imports", () => {
    expect(reachViolations(graph, "low", ["other"])).toEqual(["low/a.ts → high/b.ts → other/g.ts", "low/d.ts → low/a.ts → high/b.ts → other/g.ts"]);
    expect(reachViolations(graph, "low", ["missing"])).toEqual([]);
  });

  it("measures a top-level function from its signature to its closing brace, and the import lines of its file", () => {
    const text = ['import { a } from "./a.js";', "import type { B } from './b.js';", "export async function open(): Promise<void> {", "  if (a) {", "  }", "}", "export function other() {}"].join("\n");
    expect(sizeOf(text, "open")).toEqual({ lines: 4, importLines: 2 });
    expect(sizeOf(text, "opening")).toBeNull();
  });

  it("reports each cycle between files as a path back to its first file", () => {
    expect(importCycles(graph)).toEqual(["low/a.ts → low/d.ts → low/a.ts"]);
    const longer = importGraph(
      new Map([
        ["x/3.ts", 'import "./1.js";'],
        ["x/1.ts", 'import "./2.js";\nimport "./4.js";'],
        ["x/2.ts", 'import "./3.js";'],
        ["x/4.ts", 'import "./4.js";'],
      ]),
    );
    expect(importCycles(longer)).toEqual(["x/1.ts → x/2.ts → x/3.ts → x/1.ts", "x/4.ts → x/4.ts"]);
  });
});
