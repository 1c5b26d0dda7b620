// What a config file may hold, derived from the settings table: one optional key per row with a
// config type, and nothing else. A file that is not a JSON object of known keys with valid values is a
// usage error naming the file and the key (a hook's field by its path), in a file's words.
import { HelError } from "../errors.js";
import { z } from "../zod.js";
import { inOrder, SETTINGS, type Setting } from "./table.js";

type ConfigShape<R extends readonly Setting[]> = {
  [S in R[number] as S extends { config: { type: z.ZodType } } ? S["key"] : never]: S extends { config: { type: infer C extends z.ZodType } } ? C : never;
};

/** The order the keys have always been listed in, when a file has one hel does not know. */
const LISTED = [
  "model",
  "effort",
  "access",
  "network",
  "auto-fold",
  "compact-at",
  "child-max-steps",
  "child-max-tokens",
  "base-url",
  "child-model",
  "max-cost",
  "checkpoint-max-mb",
  "mcp-servers",
  "mcp-timeout",
  "approval",
  "allow",
  "hooks",
];

/** The config file's schema: every key optional, no other key. */
export function configFileSchema<const R extends readonly Setting[]>(table: R) {
  const shape = Object.fromEntries(inOrder(table, LISTED).flatMap((s) => (s.config ? [[s.key, s.config.type]] : []))) as ConfigShape<R>;
  return z.strictObject(shape).partial();
}

export const ConfigFileSchema = configFileSchema(SETTINGS);
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The file's settings, or a HelError(2) naming the file and what is wrong with it. */
export function checkedConfig<S extends z.ZodObject>(schema: S, json: unknown, path: string): z.infer<S> {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const keys = Object.keys(schema.shape).join(", ");
  if (issue.code === "unrecognized_keys" && issue.path.length === 0) {
    throw new HelError(`the config file ${path} has an unknown key ${JSON.stringify(issue.keys[0])} — the keys are ${keys}`, 2);
  }
  if (issue.path.length === 0) throw new HelError(`the config file ${path} must hold a JSON object — with keys from ${keys}`, 2);
  const key = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") throw new HelError(`the config file ${path} has an unknown key ${JSON.stringify(`${key}.${issue.keys[0]}`)} — fix it or remove it`, 2);
  throw new HelError(`the config file ${path} has a bad value for ${JSON.stringify(key)}: ${describe(issue)} — fix it or remove the key`, 2);
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map(String).join(", ")}`;
  if (issue.code === "invalid_type" && (issue.expected === "string" || issue.expected === "boolean")) return `must be a ${issue.expected}`;
  return issue.message;
}
