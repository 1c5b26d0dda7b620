// grep and find_files as the model sees them (descriptions and arguments). The searches themselves
// (grep-search.ts, find-files-search.ts, with the .gitignore and glob libraries) run in a thread of
// their own (search-thread.ts), started on the first call, so a run that never searches does not pay
// for loading them: this file is the search room's one door, and it opens the engine only dynamically.
// A page that stops early says how to go on, so the descriptions leave paging out.
import { FindFilesArgsSchema, GrepArgsSchema, type FindFilesArgs, type GrepArgs } from "./args.js";
import type { Tool } from "../types.js";

export const grepTool: Tool<GrepArgs> = {
  name: "grep",
  description: "Search files by JS regex, per line; skips ignored and binary files.",
  schema: GrepArgsSchema,
  // A page is already bounded below the spill limit.
  spill: false,
  run: async (args, ctx) => (await import("./search-thread.js")).runSearch({ name: grepTool.name, lines: args }, ctx),
};

export const findFilesTool: Tool<FindFilesArgs> = {
  name: "find_files",
  description: "Files matching a glob, newest first.",
  schema: FindFilesArgsSchema,
  // The listing is already bounded below the spill limit.
  spill: false,
  run: async (args, ctx) => (await import("./search-thread.js")).runSearch({ name: findFilesTool.name, paths: args }, ctx),
};
