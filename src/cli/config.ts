// Settings that stick: the user's config file ($XDG_CONFIG_HOME/hel/config.json, else
// ~/.config/hel/config.json) and the project's (.hel/config.json). Their keys are the long flag names;
// a flag (or HEL_MODEL / HEL_BASE_URL) wins over the project's file, which wins over the user's — but a
// project may only lower a budget or step limit (BUDGETS), never raise the user's (projectBudgets). A
// file that is not a JSON object of known keys with valid values is a usage error naming the file and
// the key (a hook's field by its path).
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "../zod.js";
import { HelError } from "../errors.js";
import { helDir } from "../fs/hel-dir.js";
import { HooksSchema } from "../hooks/hook-config.js";
import { readProblem, readRegularFile } from "../fs/regular-file.js";
import { ACCESS_LEVELS, APPROVAL_MODES } from "../tools/types.js";
import { EFFORTS } from "../wire/messages.js";
import type { RunOptions } from "./options.js";
import { MAX_MODEL_NAME, SETTING_OPTIONS, type SettingKey } from "../settings/setting-keys.js";

const count = (min: number) => z.int("must be a whole number").min(min, `must be at least ${min}`);

const ConfigFileSchema = z
  .strictObject({
    model: z.string().min(1, "must be a model name").max(MAX_MODEL_NAME, `must be a model name of at most ${MAX_MODEL_NAME} characters`),
    effort: z.enum(EFFORTS),
    access: z.enum(ACCESS_LEVELS),
    network: z.boolean(),
    "auto-fold": z.enum(["on", "off"]),
    // Compaction's threshold in tokens, 0 = never: checked here, so a file written for it is valid.
    "compact-at": count(0),
    "child-max-steps": count(1),
    "child-max-tokens": count(1),
    "base-url": z.url("must be a URL such as https://api.deepseek.com"),
    "child-model": z.string().min(1, "must be a model name"),
    "max-cost": z.number("must be a number of US dollars").positive("must be more than 0"),
    "checkpoint-max-mb": count(1),
    // Each server is checked on its own (mcp/config.ts): a bad one is left out with a warning.
    "mcp-servers": z.record(z.string(), z.unknown(), "must be an object of MCP servers by name, as in .mcp.json's mcpServers"),
    "mcp-timeout": count(1),
    approval: z.enum(APPROVAL_MODES),
    allow: z
      .array(
        z.string('must hold command prefixes, such as "git fetch"').trim().min(1, "must hold command prefixes, not empty strings").max(1000, "must hold command prefixes of at most 1000 characters"),
        'must be a list of command prefixes, such as ["git fetch"]',
      )
      .max(1000, "must hold at most 1000 prefixes"),
    // A config key only: the user's programs to run at fixed points (hooks/), never a flag.
    hooks: HooksSchema,
  })
  .partial();
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

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
export async function loadConfigFile(path: string): Promise<ConfigFile> {
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
  const parsed = ConfigFileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const keys = Object.keys(ConfigFileSchema.shape).join(", ");
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

/**
 * Budgets and step limits: a project's file may lower them, never raise what the user would run with.
 * The user's value is their config's, else the default; no --max-cost is no limit, so any is lower.
 */
const BUDGETS = ["max-cost", "child-max-steps", "child-max-tokens", "checkpoint-max-mb"] as const satisfies readonly SettingKey[];

/**
 * The project's file without the budgets that would raise the user's (one warning line names them).
 * A flag wins over the project anyway, so a budget a flag gave is left to applyConfig.
 */
export function projectBudgets(project: ConfigFile, user: ConfigFile, flags: RunOptions, projectFile: string, warn: (line: string) => void): ConfigFile {
  const raised = BUDGETS.filter((key) => {
    const value = project[key];
    if (value === undefined || flags.setBy[key] !== undefined) return false;
    const theirs = user[key] ?? (flags[SETTING_OPTIONS[key]] as number | null);
    return theirs !== null && value > theirs;
  });
  if (raised.length === 0) return project;
  const kept = { ...project };
  for (const key of raised) delete kept[key];
  const yours = raised.map((key) => `${key} ${user[key] ?? flags[SETTING_OPTIONS[key]]}`).join(", ");
  warn(
    `ignored this project's ${raised.map((key) => `${key} ${project[key]}`).join(", ")} (${projectFile}): a project may lower a budget or step limit, not raise yours (${yours}) — set it in your own config or pass the flag`,
  );
  return kept;
}

/** The options with each setting that no flag (or environment variable) gave taken from the config. */
export function applyConfig(options: RunOptions, config: ConfigFile): RunOptions {
  const applied: Record<string, unknown> = { ...options };
  for (const [key, option] of Object.entries(SETTING_OPTIONS) as [SettingKey, string][]) {
    if (options.setBy[key] === undefined && config[key] !== undefined) applied[option] = config[key];
  }
  return applied as RunOptions;
}
