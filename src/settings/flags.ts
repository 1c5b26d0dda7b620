// The settings table's flags on a commander command: each row's option (its help, choices and the
// default --help shows), where each setting came from (the flag, else its environment variable), and
// the run options' input from commander's values.
import { type Command, Option } from "commander";
import type { Origin } from "./run-options.js";
import { optionName, type SettingsTable } from "./table.js";

/** One commander option per row with a flag, in the table's order (the order --help lists them). */
export function addSettingFlags(command: Command, table: SettingsTable, env: NodeJS.ProcessEnv): Command {
  for (const { key, flag, env: envName } of table) {
    if (!flag) continue;
    const option = new Option(`${flag.short ? `-${flag.short}, ` : ""}--${key}${flag.value ? ` ${flag.value}` : ""}`, envName ? `${flag.help} (env ${envName})` : flag.help);
    if (flag.choices) option.choices(flag.choices);
    const given = typeof flag.default === "function" ? flag.default(env) : flag.default;
    if (given !== undefined) option.default(given);
    command.addOption(option);
  }
  return command;
}

/** The settings a flag gave, or else their environment variable; the others keep their default until a file gives them. */
export function flagOrigins(command: Command, table: SettingsTable, env: NodeJS.ProcessEnv): Record<string, Origin> {
  const origin: Record<string, Origin> = {};
  for (const { key, flag, env: envName } of table) {
    if (flag && command.getOptionValueSource(optionName(key)) === "cli") origin[key] = "flag";
    else if (envName && env[envName]) origin[key] = "env";
  }
  return origin;
}

/** The run options as commander gave them (each row's own conversion), and the defaults of settings that are not flags. */
export function flagValues(opts: Record<string, unknown>, table: SettingsTable): Record<string, unknown> {
  return Object.fromEntries(
    table.flatMap((setting) => {
      if (!setting.type) return [];
      const name = optionName(setting.key);
      if (!setting.flag) return [[name, setting.default]];
      return [[name, setting.flag.from ? setting.flag.from(opts[name]) : opts[name]]];
    }),
  );
}
