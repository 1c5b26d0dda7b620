// find_files: the tool as the model sees it (description and arguments). The listing itself
// (find-files-search.ts, with the .gitignore and glob libraries) is loaded on the first call, so a run
// that never searches does not pay for loading it.
import { PATHS_PER_PAGE } from "./search-format.js";
import { FindFilesArgsSchema, type FindFilesArgs } from "./search-args.js";
import type { Tool } from "./types.js";

export const findFilesTool: Tool<FindFilesArgs> = {
  name: "find_files",
  description: `Find files whose path matches a glob (src/**/*.ts; *.ts matches names anywhere), newest first, ${PATHS_PER_PAGE} at most; skips .gitignore'd, .git and node_modules.`,
  schema: FindFilesArgsSchema,
  // The listing is already bounded below the spill limit.
  spill: false,
  run: async (args, ctx) => (await import("./find-files-search.js")).runFindFiles(args, ctx),
};
