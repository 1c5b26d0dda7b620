// grep: the tool as the model sees it (description and arguments). The search itself (grep-search.ts,
// with the .gitignore and glob libraries) is loaded on the first call, so a run that never searches
// does not pay for loading it.
import { z } from "../zod.js";
import { GREP_PAGE_LINES } from "./search-format.js";
import type { Tool } from "./types.js";

// Every request carries the definition, so the fields have no descriptions of their own: their names
// and the tool's description say what they are.
export const GrepQuerySchema = z.strictObject({
  pattern: z.string().optional(),
  path: z.string().optional(),
  glob: z.string().optional(),
  ignore_case: z.boolean().optional(),
  files_only: z.boolean().optional(),
});

const GrepArgsSchema = GrepQuerySchema.extend({ cursor: z.string().optional() }).superRefine((args, issues) => {
  if (args.pattern === undefined && args.cursor === undefined) {
    issues.addIssue({ code: "custom", path: ["pattern"], message: "give pattern (a regular expression), or cursor to continue a previous search" });
  }
  if (args.pattern === "") issues.addIssue({ code: "custom", path: ["pattern"], message: "the pattern is empty: give a regular expression" });
});
export type GrepArgs = z.infer<typeof GrepArgsSchema>;

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
