// What `hel config` prints: every setting of the table (what an invocation does, such as --json, left
// out), its effective value and where it came from, and the project's settings that were left out
// (not trusted, or above the user's limit). Its JSON form is a contract (test/contracts/config.txt).
// MCP servers' environment and header values are masked: they carry tokens.
import { z } from "../zod.js";
import type { Origin } from "./run-options.js";
import { optionName, type SettingsTable } from "./table.js";

export const SettingReportSchema = z.object({
  settings: z.array(
    z.object({
      key: z.string(),
      /** The value as JSON; null: none (no limit, the session's, the mode's default). */
      value: z.unknown(),
      origin: z.enum(["flag", "env", "project", "user", "default"]),
      /** A project's value hel did not use, and why; the setting's effective value is on its own entry. */
      ignored: z.enum(["not trusted", "raises your limit"]).optional(),
    }),
  ),
});
export type SettingReport = z.infer<typeof SettingReportSchema>;

export interface ReportInput {
  /** The run options with the config files applied. */
  options: Readonly<Record<string, unknown>> & { origin: Readonly<Record<string, Origin | undefined>> };
  /** The merged config files, for settings that are not run options (hooks), and which file gave each key. */
  config: Readonly<Record<string, unknown>>;
  from: Readonly<Record<string, "project" | "user">>;
  ignored: readonly { key: string; value: unknown; why: "not trusted" | "raises your limit" }[];
}

const MASK = "***";

/** An MCP server map with its env and header values masked. */
function masked(key: string, value: unknown): unknown {
  if (key !== "mcp-servers" || value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, Record<string, unknown>>).map(([name, entry]) => {
      const out: Record<string, unknown> = { ...entry };
      delete out.inProject;
      for (const field of ["env", "headers"]) {
        if (entry[field] && typeof entry[field] === "object") out[field] = Object.fromEntries(Object.keys(entry[field] as object).map((k) => [k, MASK]));
      }
      return [name, out];
    }),
  );
}

/** The report: one entry per setting, in the table's order, each followed by the project's values left out of it. */
export function settingsReport(table: SettingsTable, input: ReportInput): SettingReport {
  const settings = table
    .filter((s) => !s.perRun)
    .flatMap((s) => {
      const value = s.type ? input.options[optionName(s.key)] : input.config[s.key];
      const origin: Origin = (s.type ? input.options.origin[s.key] : input.config[s.key] !== undefined ? input.from[s.key] : undefined) ?? "default";
      const ignored = input.ignored.filter((i) => i.key === s.key).map((i) => ({ key: s.key, value: masked(s.key, i.value), origin: "project" as const, ignored: i.why }));
      return [{ key: s.key, value: masked(s.key, value ?? null), origin }, ...ignored];
    });
  return { settings };
}

const ORIGIN_WORDS: Record<Origin, string> = { flag: "flag", env: "environment", project: "project file", user: "user file", default: "default" };

/** The plain form: one aligned line per entry, `key  origin  value`, values as JSON unless a plain word. */
export function reportLines(report: SettingReport): string[] {
  const rows = report.settings.map((s) => [s.key, s.ignored ? `project file (${s.ignored}: ignored)` : ORIGIN_WORDS[s.origin], shownValue(s.value)] as const);
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map(([key, origin, value]) => `${key.padEnd(widths[0]!)}  ${origin.padEnd(widths[1]!)}  ${value}`);
}

function shownValue(value: unknown): string {
  return typeof value === "string" && /^[\x21-\x7e]+$/.test(value) ? value : JSON.stringify(value);
}
