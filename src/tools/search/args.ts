// The arguments of grep and find_files, apart from the tools themselves: the searches, loaded on a
// tool's first call, need the types and the cursor needs the query's schema, while the tools' own
// modules load those searches.
import { z } from "../../zod.js";

// Every request carries the definition, so the fields have no descriptions of their own: their names
// and the tool's description say what they are.
export const GrepQuerySchema = z.strictObject({
  pattern: z.string().optional(),
  path: z.string().optional(),
  glob: z.string().optional(),
  ignore_case: z.boolean().optional(),
  files_only: z.boolean().optional(),
});

export const GrepArgsSchema = GrepQuerySchema.extend({ cursor: z.string().optional() }).superRefine((args, issues) => {
  if (args.pattern === undefined && args.cursor === undefined) {
    issues.addIssue({ code: "custom", path: ["pattern"], message: "give pattern (a regular expression), or cursor to continue a previous search" });
  }
  if (args.pattern === "") issues.addIssue({ code: "custom", path: ["pattern"], message: "the pattern is empty: give a regular expression" });
});
export type GrepArgs = z.infer<typeof GrepArgsSchema>;

// The same holds here: no field descriptions.
export const FindFilesArgsSchema = z.strictObject({ pattern: z.string(), path: z.string().optional() });
export type FindFilesArgs = z.infer<typeof FindFilesArgsSchema>;
