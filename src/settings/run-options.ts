// What one run is told to do: the flags, with the config files' settings applied (config.ts), checked
// with zod. `setBy` says which settings a flag or the environment gave, which the config files may not override.
import { z } from "../zod.js";
import { DELEGATE_MODES } from "../agent/events.js";
import { SELECTABLE_TOOLS } from "../agent/toolbox.js";
import { MAX_OUTPUT_TOKENS } from "../agent/request.js";
import { ACCESS_LEVELS, APPROVAL_MODES } from "../tools/types.js";
import { EFFORTS } from "../wire/messages.js";
import { ServerEntrySchema } from "../mcp/config.js";
import { MAX_MODEL_NAME, SETTING_OPTIONS, type SettingKey } from "./setting-keys.js";

const positiveInt = (flag: string) =>
  z.coerce
    .number({ error: `${flag} takes a whole number` })
    .int(`${flag} takes a whole number`)
    .positive(`${flag} must be at least 1`);

/** Where a setting came from when not from its default: its flag, or the environment (HEL_MODEL, HEL_BASE_URL). */
const SETTING_SOURCES = ["flag", "env"] as const;

export const RunOptionsSchema = z.object({
  prompt: z.array(z.string()),
  delegate: z.enum(DELEGATE_MODES).nullable(),
  resume: z.string().min(1).nullable(),
  /** --resume without an id: pick the session from a list. */
  pickSession: z.boolean(),
  continue: z.boolean(),
  cwd: z.string(),
  model: z.string().min(1).max(MAX_MODEL_NAME, `--model takes a model name of at most ${MAX_MODEL_NAME} characters`),
  baseUrl: z.url({ error: "--base-url must be a URL such as https://api.deepseek.com" }),
  maxOutputTokens: positiveInt("--max-output-tokens").max(MAX_OUTPUT_TOKENS, `--max-output-tokens is at most ${MAX_OUTPUT_TOKENS}`).nullable(),
  maxSteps: positiveInt("--max-steps"),
  childMaxSteps: positiveInt("--child-max-steps"),
  childMaxTokens: positiveInt("--child-max-tokens").nullable(),
  /** null: children use the session's model. */
  childModel: z.string().min(1, "--child-model takes a model name").nullable(),
  /** US dollars; null: no limit. */
  maxCost: z.coerce.number({ error: "--max-cost takes an amount in US dollars, such as 0.50" }).positive("--max-cost must be more than 0").nullable(),
  access: z.enum(ACCESS_LEVELS),
  network: z.boolean(),
  /** null: on-request in the interactive prompt, never elsewhere. */
  approval: z.enum(APPROVAL_MODES, { error: `--approval takes ${APPROVAL_MODES.join(" or ")}` }).nullable(),
  /** Command prefixes given the network unasked, in the sandbox still (config `allow`; no flag). */
  allow: z.array(z.string()),
  tools: z.array(z.enum(SELECTABLE_TOOLS, { error: `--tools takes names from: ${SELECTABLE_TOOLS.join(", ")}, or none` })),
  effort: z.enum(EFFORTS),
  /** null: the default, 80% of the model's window. */
  /** Fold a finished command episode without waiting for the model. */
  autoFold: z.enum(["on", "off"], { error: "--auto-fold takes on or off" }),
  checkpointMaxMb: z.number().int().positive().default(1024),
  compactAt: z.coerce.number({ error: "--compact-at takes a whole number of tokens" }).int("--compact-at takes a whole number of tokens").nonnegative("--compact-at takes 0 (never) or more tokens").nullable(),
  json: z.boolean(),
  jsonEvents: z.boolean(),
  showReasoning: z.boolean(),
  record: z.string().nullable(),
  /** The MCP servers to start (the config files' and --mcp-config's, checked). */
  mcpServers: z.record(z.string(), ServerEntrySchema),
  /** --mcp-config: a file of more MCP servers, in .mcp.json's shape. */
  mcpConfig: z.string().nullable(),
  /** Seconds one call of an MCP server's tool may wait for its answer. */
  mcpTimeout: z.number().int().positive(),
  /** Take the project's own widening settings for this run without asking (trust.ts). */
  trust: z.boolean(),
  /** Settings given on the command line or by the environment; config files give only the others. */
  setBy: z.partialRecord(z.enum(Object.keys(SETTING_OPTIONS) as [SettingKey, ...SettingKey[]]), z.enum(SETTING_SOURCES)),
});
export type RunOptions = z.infer<typeof RunOptionsSchema>;
