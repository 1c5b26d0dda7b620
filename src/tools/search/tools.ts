// grep and find_files as the model sees them (descriptions and arguments). The searches themselves
// (grep-search.ts, find-files-search.ts, with the .gitignore and glob libraries) run in a thread of
// their own (search-thread.ts), started on the first call, so a run that never searches does not pay
// for loading them: this file is the search room's one door, and it opens the engine only dynamically.
import { GREP_PAGE_LINES, PATHS_PER_PAGE } from "./format.js";
import { FindFilesArgsSchema, GrepArgsSchema, type FindFilesArgs, type GrepArgs } from "./args.js";
import type { Tool } from "../types.js";

export const grepTool: Tool<GrepArgs> = {
  name: "grep",
  description:
    "Search file contents for a JavaScript regex, per line; skips .gitignore'd, .git, node_modules and binary files. " + `Returns path:line: text, ${GREP_PAGE_LINES} per call, then a cursor (send it alone to go on).`,
  schema: GrepArgsSchema,
  // A page is already bounded below the spill limit.
  spill: false,
  run: async (args, ctx) => (await import("./search-thread.js")).runSearch({ name: grepTool.name, lines: args }, ctx),
};

export const findFilesTool: Tool<FindFilesArgs> = {
  name: "find_files",
  description: `Find files whose path matches a glob (src/**/*.ts; *.ts matches names anywhere), newest first, ${PATHS_PER_PAGE} at most; skips .gitignore'd, .git and node_modules.`,
  schema: FindFilesArgsSchema,
  // The listing is already bounded below the spill limit.
  spill: false,
  run: async (args, ctx) => (await import("./search-thread.js")).runSearch({ name: findFilesTool.name, paths: args }, ctx),
};
