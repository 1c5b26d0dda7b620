// The parts of `hel --help` that list the settings, derived from the settings table: the environment
// variables and the config files' keys (each flag's own help is its option's, flags.ts).
import { inOrder, type SettingsTable } from "./table.js";

/** The order --help has always listed the config keys in; a new key comes after these. */
const LISTED = ["model", "effort", "access", "network", "auto-fold", "compact-at", "child-max-steps", "child-max-tokens", "child-model", "max-cost", "base-url", "approval"];

/** The Environment section's line for the settings' variables. */
export function envHelp(table: SettingsTable): string {
  const rows = table.filter((s) => s.env);
  const flags = rows.map((s) => `--${s.key}`);
  return `  ${rows.map((s) => s.env).join(", ")}  defaults for ${flags.length > 1 ? `${flags.slice(0, -1).join(", ")} and ${flags.at(-1)}` : flags.join("")}`;
}

/** The Settings paragraph: the files, their keys, and which source wins; laid out in lines of at most `width`. */
export function settingsHelp(table: SettingsTable, width = 103): string {
  const keys = inOrder(
    table.filter((s) => s.config),
    LISTED,
  );
  const flags = keys.filter((s) => s.flag).map((s) => s.key);
  const described = keys.filter((s) => !s.flag && s.config?.help).map((s) => `${s.key}: ${s.config?.help}`);
  const others = keys.filter((s) => !s.flag && !s.config?.help).map((s) => `${s.key} (${s.about})`);
  const envs = table.flatMap((s) => (s.env ? [s.env] : []));
  const list = described.length > 0 ? `${flags.join(", ")}, ${described.join("; ")}` : flags.join(", ");
  const text =
    "Settings: ~/.config/hel/config.json ($XDG_CONFIG_HOME/hel/config.json) and the project's .hel/config.json, " +
    `keys the long flag names (${list})${others.length > 0 ? ` and ${others.join(" and ")}` : ""}; flags and ${envs.join("/")} win over the project's file, which wins over the user's. ` +
    "The project's base-url, network, allow, approval, hooks, MCP servers (its .mcp.json and its mcp-servers), memory auto and an access wider than the user's (or edit) " +
    "are used only once you trust the project: hel asks in a terminal and keeps the answer in trusted.json beside config.json (asking again when those settings change); " +
    "--trust trusts it for one run; otherwise they are ignored.";
  return wrap(text, width);
}

/** Words in lines of at most `width` (a longer word alone), each line after the first indented by two spaces. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].join("\n");
}
