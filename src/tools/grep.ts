// grep: the tool as the model sees it (description and arguments). The search itself (grep-search.ts,
// with the .gitignore and glob libraries) is loaded on the first call, so a run that never searches
// does not pay for loading it.
import { GREP_PAGE_LINES } from "./search-format.js";
import { GrepArgsSchema, type GrepArgs } from "./search-args.js";
import type { Tool } from "./types.js";

export const grepTool: Tool<GrepArgs> = {
  name: "grep",
  description:
    "Search file contents for a JavaScript regex, per line; skips .gitignore'd, .git, node_modules and binary files. " +
    `Returns path:line: text, ${GREP_PAGE_LINES} per call, then a cursor (send it alone to go on).`,
  schema: GrepArgsSchema,
  // A page is already bounded below the spill limit.
  spill: false,
  run: async (args, ctx) => (await import("./grep-search.js")).runGrep(args, ctx),
};
