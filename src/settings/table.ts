// hel's settings, one row each: the flag, the config key (the long flag name), the environment variable,
// the type a run holds it as (zod, in the flag's words), the file's type (in a file's words), the
// default, the help text, whether a project's value widens what hel does (and so needs trust), and
// where it may be set. Everything else is derived from these rows with functions that take the table
// as an argument (flags.ts, run-options.ts, config-schema.ts, help.ts, docs.ts, report.ts, cli/config.ts's
// budgets and cli/trust.ts's widening settings): adding a setting is adding a row.
import { resolve } from "node:path";
import { DEFAULT_CHILD_MAX_STEPS } from "../agent/children/child-budget.js";
import { DELEGATE_MODES } from "../agent/events.js";
import { ISOLATIONS } from "../agent/children/isolation.js";
import { MEMORY_MODES } from "../agent/memory-block.js";
import { MAX_OUTPUT_TOKENS } from "../agent/request.js";
import { PROVIDERS } from "../model/host.js";
import { DEFAULT_TOOLS, SELECTABLE_TOOLS } from "../agent/toolbox.js";
import { type HooksConfig, HooksSchema } from "../hooks/hook-config.js";
import { ServerEntrySchema, type ServerMap, serverSummary } from "../mcp/config.js";
import { ACCESS_LEVELS, APPROVAL_MODES, type Access } from "../tools/types.js";
import { EFFORTS } from "../wire/messages.js";
import { z } from "../zod.js";

/** Model names are short; a longer one is a mistake that every request and error line would repeat. */
const MAX_MODEL_NAME = 256;

/** A config key's run option: `max-cost` is `maxCost`, as commander names a long flag's value. */
export type OptionName<K extends string> = K extends `${infer A}-${infer B}` ? `${A}${Capitalize<OptionName<B>>}` : K;

export interface SettingFlag {
  /** The one-letter flag, without its dash. */
  short?: string;
  /** How --help names the flag's value: `<n>`, `[id]`; none for a switch. */
  value?: string;
  help: string;
  choices?: readonly string[];
  /** commander's default, shown in --help as it is (a string for a number, as the command line gives it). */
  default?: string | boolean | ((env: NodeJS.ProcessEnv) => string);
  /** The run option from commander's value, where it is not that value (or null when absent). */
  from?(raw: unknown): unknown;
}

export interface SettingConfig {
  /** The value a config file may hold, its errors in a file's words ("must be …"). */
  type: z.ZodType;
  /** For a key that is not a flag: what --help's list of config keys says of it. */
  help?: string;
  /** A budget or step limit: a project's file may lower what the user would run with, never raise it. */
  projectLowersOnly?: true;
}

export interface Setting {
  /** The config key and long flag name. */
  key: string;
  /** What a run holds as `options[OptionName<key>]`, its errors in the flag's words; none: not a run option (hooks). */
  type: z.ZodType | undefined;
  flag?: SettingFlag;
  /** An environment variable that sets it, below a flag and above the files. */
  env?: string;
  /** Absent: not a config key (a flag only). */
  config?: SettingConfig;
  /** The run's value when neither a flag nor a file gives one, for a setting commander does not default. */
  default?: unknown;
  /** What this invocation does (which session, which output), not a setting: `hel config` leaves it out. */
  perRun?: true;
  /** Whether a project's own value widens what hel does (and so is taken only from a trusted project); `user` is what the user's own file says. */
  widens?(value: unknown, user: Readonly<Record<string, unknown>>): boolean;
  /** For the docs: when a project's value widens, where not always. */
  widensWhen?: string;
  /** How the trust question names the setting, where its key is not what a person would call it. */
  label?: string;
  /** How the trust question names its value, where it is not one word: each piece made fit for a terminal with `clean`. */
  shown?(value: unknown, clean: (text: string) => string): string;
  /** What a config key that is neither a flag nor described by `config.help` is (hooks), for --help and the docs. */
  about?: string;
}

export type SettingsTable = readonly Setting[];

/** A row as written, its key and types kept, so that the run options and config file derived from the table are typed. */
const row = <const S extends Setting>(setting: S): S => setting;

const positiveInt = (flag: string) =>
  z.coerce
    .number({ error: `${flag} takes a whole number` })
    .int(`${flag} takes a whole number`)
    .positive(`${flag} must be at least 1`);
const count = (min: number) => z.int("must be a whole number").min(min, `must be at least ${min}`);
const orNull = (raw: unknown) => raw ?? null;
const pathOrNull = (raw: unknown) => (raw ? resolve(String(raw)) : null);
const rank = (level: unknown) => ACCESS_LEVELS.indexOf(level as Access);

const DEFAULT_MODEL = "deepseek-flash";
const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
const DEFAULT_BASE_URL = "https://api.deepseek.com";

export const SETTINGS = [
  row({
    key: "delegate",
    type: z.enum(DELEGATE_MODES).nullable(),
    flag: { value: "<mode>", help: "offer delegate_task, giving the child this context, and review_changes", choices: DELEGATE_MODES, from: orNull },
  }),
  row({
    key: "resume",
    type: z.string().min(1).nullable(),
    perRun: true,
    // `--resume` alone picks from a list (run-options.ts's pickSession).
    flag: { value: "[id]", help: "continue a saved session (full id or a unique prefix); without an id, pick one from a list", from: (raw) => (typeof raw === "string" ? raw : null) },
  }),
  row({ key: "continue", type: z.boolean(), perRun: true, flag: { short: "c", help: "continue the most recently updated session of this project", default: false, from: Boolean } }),
  row({
    key: "plan",
    type: z.boolean(),
    perRun: true,
    flag: { help: "plan mode: the model looks and changes nothing (commands run read-only), and ends with a plan; `hel -c go` carries it out", default: false, from: Boolean },
  }),
  row({
    key: "cwd",
    type: z.string(),
    perRun: true,
    flag: { short: "C", value: "<dir>", help: "the folder to start in; the project is the nearest folder at or above it with .hel/ or .git", default: ".", from: (raw) => resolve(String(raw ?? ".")) },
  }),
  row({
    key: "worktree",
    type: z.string().nullable(),
    perRun: true,
    // `-w` alone: a new worktree under a name hel makes (""); absent: the project itself (null).
    flag: {
      short: "w",
      value: "[name]",
      help: "run the session in its own git worktree, .hel/worktrees/<name>/ on branch hel/<name> (made from the project as it is; a new name when none is given); `hel worktrees merge <name>` brings its changes in",
      from: (raw) => (typeof raw === "string" ? raw : raw === true ? "" : null),
    },
  }),
  row({
    key: "model",
    type: z.string().min(1).max(MAX_MODEL_NAME, `--model takes a model name of at most ${MAX_MODEL_NAME} characters`),
    flag: { value: "<name>", help: "the model", default: (env) => env.HEL_MODEL || DEFAULT_MODEL },
    env: "HEL_MODEL",
    config: { type: z.string().min(1, "must be a model name").max(MAX_MODEL_NAME, `must be a model name of at most ${MAX_MODEL_NAME} characters`) },
  }),
  row({
    key: "base-url",
    type: z.url({ error: "--base-url must be a URL such as https://api.deepseek.com" }),
    flag: { value: "<url>", help: "the API base URL", default: (env) => env.HEL_BASE_URL || DEFAULT_BASE_URL },
    env: "HEL_BASE_URL",
    config: { type: z.url("must be a URL such as https://api.deepseek.com") },
    // Where the key is sent.
    widens: () => true,
  }),
  row({
    key: "provider",
    type: z.enum(PROVIDERS, { error: `--provider takes one of ${PROVIDERS.join(", ")}` }),
    flag: {
      value: "<name>",
      help: "who serves base-url: deepseek, or openai-compatible (another host or a local server: DeepSeek-only request fields are not sent)",
      choices: PROVIDERS,
      default: (env) => env.HEL_PROVIDER || "deepseek",
    },
    env: "HEL_PROVIDER",
    // It changes only which fields a request carries, not what hel may do or where the key goes.
    config: { type: z.enum(PROVIDERS, { error: `must be one of ${PROVIDERS.join(", ")}` }) },
  }),
  row({
    key: "max-output-tokens",
    type: positiveInt("--max-output-tokens").max(MAX_OUTPUT_TOKENS, `--max-output-tokens is at most ${MAX_OUTPUT_TOKENS}`).nullable(),
    flag: { value: "<n>", help: "max_tokens of each request (default 8192, or 65536 when thinking is on, since reasoning counts against it)", from: orNull },
  }),
  row({ key: "max-steps", type: positiveInt("--max-steps"), flag: { value: "<n>", help: "model requests allowed per instruction, per agent", default: "50" } }),
  row({
    key: "child-max-steps",
    type: positiveInt("--child-max-steps"),
    flag: { value: "<n>", help: "model requests allowed per subagent (delegation or review)", default: String(DEFAULT_CHILD_MAX_STEPS) },
    config: { type: count(1), projectLowersOnly: true },
  }),
  row({
    key: "child-max-tokens",
    type: positiveInt("--child-max-tokens").nullable(),
    flag: { value: "<n>", help: "prompt + completion tokens allowed per subagent (default: no limit)", from: orNull },
    config: { type: count(1), projectLowersOnly: true },
  }),
  row({
    key: "child-model",
    // null: children use the session's model.
    type: z.string().min(1, "--child-model takes a model name").nullable(),
    flag: { value: "<name>", help: "the model of task-only delegations and reviews (default: the session's); full and no-tools children and asks keep the session's", from: orNull },
    config: { type: z.string().min(1, "must be a model name") },
  }),
  row({
    key: "child-isolation",
    type: z.enum(ISOLATIONS),
    flag: {
      value: "<mode>",
      help: "where a delegation that may write works when its call and agent do not say: none (the project's tree) or worktree (a git worktree of its own, merged back when it ends)",
      choices: ISOLATIONS,
      default: "none",
    },
    config: { type: z.enum(ISOLATIONS, { error: `must be one of ${ISOLATIONS.join(", ")}` }) },
    // Neither value widens: a worktree only narrows where a child writes, and without one a child
    // writes the project's tree with the access the session has anyway, as hel always did.
  }),
  row({
    key: "max-cost",
    // US dollars; null: no limit.
    type: z.coerce.number({ error: "--max-cost takes an amount in US dollars, such as 0.50" }).positive("--max-cost must be more than 0").nullable(),
    flag: { value: "<usd>", help: "end the turn (exit_reason budget) before a request that would take this session's spend past this many US dollars", from: orNull },
    config: { type: z.number("must be a number of US dollars").positive("must be more than 0"), projectLowersOnly: true },
  }),
  row({
    key: "access",
    type: z.enum(ACCESS_LEVELS),
    flag: { value: "<level>", help: "what tools may do; children inherit it", choices: ACCESS_LEVELS, default: "edit" },
    config: { type: z.enum(ACCESS_LEVELS) },
    // Wider than what the user would otherwise run with: full, or edit over the user's read-only.
    widens: (value, user) => rank(value) > rank(user.access ?? "edit"),
    widensWhen: "wider than the user's (or edit)",
  }),
  row({
    key: "network",
    type: z.boolean(),
    flag: { help: "let commands reach the network (sandboxed commands have none by default)", default: false, from: Boolean },
    config: { type: z.boolean() },
    widens: (value) => value === true,
    widensWhen: "true",
  }),
  row({
    key: "approval",
    // null: on-request in the interactive prompt, never elsewhere.
    type: z.enum(APPROVAL_MODES, { error: `--approval takes ${APPROVAL_MODES.join(" or ")}` }).nullable(),
    flag: {
      value: "<mode>",
      help: "on-request: the model may ask you to give a command the sandbox stopped what it denied (default in the interactive prompt); never: it may not (default elsewhere)",
      choices: APPROVAL_MODES,
      from: orNull,
    },
    config: { type: z.enum(APPROVAL_MODES) },
    // Commands that would run outside the sandbox once the model asks.
    widens: (value, user) => value === "on-request" && user.approval !== "on-request",
    widensWhen: "on-request, unless the user's is",
  }),
  row({
    key: "tools",
    type: z.array(z.enum(SELECTABLE_TOOLS, { error: `--tools takes names from: ${SELECTABLE_TOOLS.join(", ")}, or none` })),
    flag: {
      value: "<names>",
      help: `comma-separated tools to offer, from ${SELECTABLE_TOOLS.join(", ")}; none = no tools`,
      default: DEFAULT_TOOLS.join(","),
      // Each tool once: a repeated name would send the model two identical definitions.
      from: (raw) => {
        const text = String(raw ?? "");
        return text === "none" || text === "" ? [] : [...new Set(text.split(",").map((t) => t.trim()))];
      },
    },
  }),
  row({
    key: "effort",
    type: z.enum(EFFORTS),
    flag: { value: "<level>", help: "reasoning effort; none turns thinking off", choices: EFFORTS, default: "high" },
    config: { type: z.enum(EFFORTS) },
  }),
  row({
    key: "auto-fold",
    // Fold a finished command episode without waiting for the model.
    type: z.enum(["on", "off"], { error: "--auto-fold takes on or off" }),
    flag: { value: "<on|off>", help: "fold a command episode that failed, then passed, into a note without waiting for the model", choices: ["on", "off"], default: "on" },
    config: { type: z.enum(["on", "off"]) },
  }),
  row({
    key: "memory",
    // Facts kept across sessions (design §19): candidates from fold notes asked about, kept, or none read or written.
    type: z.enum(MEMORY_MODES, { error: `--memory takes ${MEMORY_MODES.join(", ")}` }),
    flag: {
      value: "<mode>",
      help: "facts kept across sessions and recalled with each instruction: ask (what folds learned is offered to keep, after the turn in the terminal, else by hel memory review), auto (kept), off (none read or written)",
      choices: MEMORY_MODES,
      default: "ask",
    },
    config: { type: z.enum(MEMORY_MODES) },
    // A clone's `auto` would keep, unasked, what a prompt injection steered a fold note to say.
    widens: (value, user) => value === "auto" && user.memory !== "auto",
    widensWhen: "auto, unless the user's is",
  }),
  row({
    key: "compact-at",
    // null: the default, 80% of the model's window.
    type: z.coerce.number({ error: "--compact-at takes a whole number of tokens" }).int("--compact-at takes a whole number of tokens").nonnegative("--compact-at takes 0 (never) or more tokens").nullable(),
    flag: {
      value: "<tokens>",
      help: "compact the conversation when the next request would exceed this many input tokens (default 80% of the model's context window); 0 = never",
      from: orNull,
    },
    // Compaction's threshold in tokens, 0 = never: checked here, so a file written for it is valid.
    config: { type: count(0) },
  }),
  row({
    key: "context-window",
    // null: the model's own window when hel knows the model, else the smallest of DeepSeek's.
    type: positiveInt("--context-window").nullable(),
    flag: {
      value: "<tokens>",
      help: "the model's context window in tokens, for a model hel does not know (default 131072); compaction starts at 80% of it",
      from: orNull,
    },
    config: { type: count(1) },
  }),
  row({ key: "json", type: z.boolean(), perRun: true, flag: { help: "print one JSON object per instruction on stdout", default: false, from: Boolean } }),
  row({
    key: "json-events",
    type: z.boolean(),
    perRun: true,
    flag: { help: "print every event as a JSON line on stdout as it happens (for editors and scripts)", default: false, from: Boolean },
  }),
  row({
    key: "output-format",
    // Claude Code's headless shapes (cli/json/stream-json.ts), for scripts written for `claude -p`.
    type: z.enum(OUTPUT_FORMATS, { error: `--output-format takes ${OUTPUT_FORMATS.join(", ")}` }),
    perRun: true,
    flag: {
      value: "<format>",
      help: "stream-json: one JSON line per message in the shapes of claude -p --output-format stream-json; json: only its result line; text: the answer (default)",
      choices: OUTPUT_FORMATS,
      default: "text",
    },
  }),
  // Claude Code's headless flags, taken so that its command lines run hel unchanged: an instruction is
  // already printed and done (`-p`), and stream-json is always whole (`--verbose`).
  row({ key: "print", type: z.boolean(), perRun: true, flag: { short: "p", help: "as claude -p: hel with an instruction prints its answer and exits anyway", default: false, from: Boolean } }),
  row({ key: "verbose", type: z.boolean(), perRun: true, flag: { help: "as claude --verbose: --output-format stream-json writes every message anyway", default: false, from: Boolean } }),
  row({
    key: "json-schema",
    // A flag only: the shape of what this invocation prints, which a project's file must not change under a script.
    type: z.string().min(1, "--json-schema takes a file or a JSON Schema").nullable(),
    perRun: true,
    flag: { value: "<file or JSON>", help: "the final answer must be one JSON value valid against this JSON Schema (asked once more on a mismatch, then exit 1); --json adds it as structured_output", from: orNull },
  }),
  row({
    key: "show-reasoning",
    type: z.boolean(),
    flag: { help: "show all of the model's reasoning on stderr, not just its last lines while it streams", default: false, from: Boolean },
  }),
  row({ key: "record", type: z.string().nullable(), perRun: true, flag: { value: "<dir>", help: "write record.json and raw/*.jsonl into <dir>", from: pathOrNull } }),
  row({
    key: "trust",
    // Take the project's own widening settings for this run without asking (cli/trust.ts).
    type: z.boolean(),
    perRun: true,
    flag: {
      help: "trust this project's own settings that widen what hel does (base-url, access, network, allow, approval, hooks, MCP servers, memory auto) for this run, without asking; with --resume, adopt a session hel did not write here (cloned with the project, or saved by an older hel)",
      default: false,
      from: Boolean,
    },
  }),
  row({
    key: "mcp-config",
    // A file of more MCP servers, in .mcp.json's shape.
    type: z.string().nullable(),
    flag: { value: "<file>", help: "MCP servers to start, in .mcp.json's shape (besides the project's .mcp.json and the config's mcp-servers)", from: pathOrNull },
  }),
  // Config keys only.
  row({
    key: "checkpoint-max-mb",
    type: z.number().int().positive(),
    default: 1024,
    config: { type: count(1), help: "the disk the file checkpoints may use, default 1024", projectLowersOnly: true },
  }),
  row({
    key: "allow",
    // Command prefixes given the network unasked, in the sandbox still.
    type: z.array(z.string()),
    default: [],
    config: {
      type: z
        .array(
          z.string('must hold command prefixes, such as "git fetch"').trim().min(1, "must hold command prefixes, not empty strings").max(1000, "must hold command prefixes of at most 1000 characters"),
          'must be a list of command prefixes, such as ["git fetch"]',
        )
        .max(1000, "must hold at most 1000 prefixes"),
      help: 'command prefixes given the network unasked, such as ["git fetch"], matched on whole words of a simple command line',
    },
    widens: (value) => Array.isArray(value) && value.length > 0,
    widensWhen: "not empty",
  }),
  row({
    key: "mcp-servers",
    // The MCP servers to start (the config files' and --mcp-config's, checked).
    type: z.record(z.string(), ServerEntrySchema),
    default: {},
    // Each server is checked on its own (mcp/config.ts): a bad one is left out with a warning.
    config: { type: z.record(z.string(), z.unknown(), "must be an object of MCP servers by name, as in .mcp.json's mcpServers"), help: "MCP servers as in .mcp.json's mcpServers" },
    // Programs to start and addresses to reach: the project's .mcp.json and its config's mcp-servers.
    widens: () => true,
    label: "MCP servers",
    shown: (value, clean) => serverSummary(value as ServerMap, clean),
  }),
  row({
    key: "mcp-timeout",
    // Seconds one call of an MCP server's tool may wait for its answer.
    type: z.number().int().positive(),
    default: 60,
    config: { type: count(1), help: "seconds an MCP tool call may take, default 60" },
  }),
  row({
    key: "hooks",
    // The user's programs to run at fixed points (hooks/); the conversation takes them from the config, not the run options.
    type: undefined,
    config: { type: HooksSchema },
    about: "commands run at SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop with the event's JSON on stdin; exit 2 blocks",
    // Programs that run outside the sandbox: each command is named in the question.
    widens: () => true,
    shown: (value, clean) =>
      Object.entries(value as HooksConfig)
        .flatMap(([event, hooks]) => (hooks ?? []).map((h) => `${event} ${clean(h.command)}`))
        .join("; "),
  }),
] as const;

export type Settings = typeof SETTINGS;
export type SettingKey = Settings[number]["key"];

/** The run option a setting sets: its key as commander names a long flag's value. */
export function optionName(key: string): string {
  return key.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The rows in a fixed order where users have seen one (a message listing keys, the trust question and
 * its hash), then the rest in the table's order: a new row comes last and needs no edit here.
 */
export function inOrder<R extends Setting>(rows: readonly R[], first: readonly string[]): R[] {
  const at = (r: R) => (first.includes(r.key) ? first.indexOf(r.key) : first.length + rows.indexOf(r));
  return [...rows].sort((a, b) => at(a) - at(b));
}

/** Where a setting may be set: by its flag, in the user's file, in a project's. */
export function places(setting: Setting): ("flag" | "user file" | "project file")[] {
  return [...(setting.flag ? (["flag"] as const) : []), ...(setting.config ? (["user file", "project file"] as const) : [])];
}
