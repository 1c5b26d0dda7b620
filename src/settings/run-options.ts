// What one run is told to do: the settings table's run options (table.ts), from the flags with the
// config files' settings applied (cli/config.ts), checked with zod. `origin` says where each setting
// that did not keep its default came from: a flag or the environment (which the files may not
// override), else the project's file or the user's.
import { z } from "../zod.js";
import { type OptionName, optionName, SETTINGS, type Setting } from "./table.js";

/** Where a setting came from; a setting absent from `origin` has its default. */
const ORIGINS = ["flag", "env", "project", "user"] as const;
export type Origin = (typeof ORIGINS)[number] | "default";

type RunShape<R extends readonly Setting[]> = { [S in R[number] as S["type"] extends z.ZodType ? OptionName<S["key"]> : never]: S["type"] & z.ZodType };

/** The table's run options: one field per row that a run holds, named as commander names the flag's value. */
function runOptionsShape<const R extends readonly Setting[]>(table: R): RunShape<R> {
  return Object.fromEntries(table.flatMap((s) => (s.type ? [[optionName(s.key), s.type]] : []))) as RunShape<R>;
}

/** A run's options: the table's, the instruction, and where each setting came from. */
export function runOptionsSchema<const R extends readonly Setting[]>(table: R) {
  const keys = table.map((s) => s.key) as [R[number]["key"], ...R[number]["key"][]];
  return z.object({
    prompt: z.array(z.string()),
    /** --resume without an id: pick the session from a list. */
    pickSession: z.boolean(),
    ...runOptionsShape(table),
    origin: z.partialRecord(z.enum(keys), z.enum(ORIGINS)),
  });
}

export const RunOptionsSchema = runOptionsSchema(SETTINGS);
export type RunOptions = z.infer<typeof RunOptionsSchema>;
