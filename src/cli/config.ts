// Settings that stick: the user's config file ($XDG_CONFIG_HOME/hel/config.json, else
// ~/.config/hel/config.json) and the project's (.hel/config.json). Their keys are the long flag names;
// a flag (or HEL_MODEL / HEL_BASE_URL) wins over the project's file, which wins over the user's — but a
// project may only lower a budget or step limit (budgets), never raise the user's (projectBudgets). A
// file that is not a JSON object of known keys with valid values is a usage error naming the file and
// the key (a hook's field by its path).
import { homedir } from "node:os";
import { join } from "node:path";
import { HelError } from "../errors.js";
import { helDir } from "../fs/hel-dir.js";
import { readProblem, readRegularFile } from "../fs/regular-file.js";
import { checkedConfig, type ConfigFile, ConfigFileSchema } from "../settings/config-schema.js";
import type { RunOptions } from "../settings/run-options.js";
import { inOrder, optionName, SETTINGS, type SettingsTable } from "../settings/table.js";

export type { ConfigFile };

/** A config file is a few lines: anything near this size is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** hel's folder of the user's own files: $XDG_CONFIG_HOME/hel, else ~/.config/hel. */
export function userConfigDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "hel");
}

/** The two files: the user's own, and the project's (whose widening keys need trust, trust.ts). */
export function configPaths(projectDir: string, env: NodeJS.ProcessEnv): { user: string; project: string } {
  return { user: join(userConfigDir(env), "config.json"), project: join(helDir(projectDir), "config.json") };
}

/** What one file says; a missing file says nothing. Throws HelError(2) on a bad file. */
export async function loadConfigFile(path: string, schema: typeof ConfigFileSchema = ConfigFileSchema): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readRegularFile(path, MAX_CONFIG_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return {};
    throw new HelError(`the config file ${path} ${readProblem(e)} — fix it or remove it`, 2);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new HelError(`the config file ${path} is not valid JSON (${(e as Error).message}) — fix it or remove it`, 2);
  }
  return checkedConfig(schema, json, path);
}

/** The settings a project's file may lower but not raise (budgets and step limits), in the order a warning has always named them. */
function budgets(table: SettingsTable): string[] {
  return inOrder(
    table.filter((s) => s.config?.projectLowersOnly),
    ["max-cost", "child-max-steps", "child-max-tokens", "checkpoint-max-mb"],
  ).map((s) => s.key);
}

type Values = Readonly<Record<string, unknown>>;

/**
 * The project's file without the budgets that would raise the user's (one warning line names them).
 * The user's value is their config's, else the default; no --max-cost is no limit, so any is lower.
 * A flag wins over the project anyway, so a budget a flag gave is left to applyConfig.
 */
export function projectBudgets<C extends Values>(project: C, user: Values, flags: RunOptions, projectFile: string, warn: (line: string) => void, table: SettingsTable = SETTINGS): C {
  const options = flags as unknown as Values;
  const raised = budgets(table).filter((key) => {
    const value = project[key] as number | undefined;
    if (value === undefined || (flags.origin as Values)[key] !== undefined) return false;
    const theirs = (user[key] ?? options[optionName(key)]) as number | null;
    return theirs !== null && value > theirs;
  });
  if (raised.length === 0) return project;
  const kept: Record<string, unknown> = { ...project };
  for (const key of raised) delete kept[key];
  const yours = raised.map((key) => `${key} ${user[key] ?? options[optionName(key)]}`).join(", ");
  warn(
    `ignored this project's ${raised.map((key) => `${key} ${project[key]}`).join(", ")} (${projectFile}): a project may lower a budget or step limit, not raise yours (${yours}) — set it in your own config or pass the flag`,
  );
  return kept as C;
}

/**
 * The options with each setting that no flag (or environment variable) gave taken from the config,
 * its origin the file it came from (`from`: the project's where not the user's).
 */
export function applyConfig(options: RunOptions, config: ConfigFile, from: Readonly<Record<string, "project" | "user">> = {}, table: SettingsTable = SETTINGS): RunOptions {
  const applied: Record<string, unknown> = { ...options };
  const origin: Record<string, string> = { ...options.origin };
  for (const setting of table) {
    const value = (config as Values)[setting.key];
    if (!setting.type || !setting.config || origin[setting.key] !== undefined || value === undefined) continue;
    applied[optionName(setting.key)] = value;
    origin[setting.key] = from[setting.key] ?? "user";
  }
  return { ...applied, origin } as RunOptions;
}
