// docs/settings.md, derived from the settings table: one line per setting with its flag, environment
// variable, where it may be set, its default, whether a project needs trust for it, and its help.
// test/settings/docs.test.ts fails when the file differs (HEL_WRITE_DOCS=1 rewrites it).
import { places, type Setting, type SettingsTable } from "./table.js";

/** A cell's text: no pipe may end the cell early. */
const cell = (text: string) => text.replaceAll("|", "\\|");
const code = (text: string) => `\`${text}\``;

function defaultOf(setting: Setting): string {
  const given = typeof setting.flag?.default === "function" ? setting.flag.default({}) : (setting.flag?.default ?? setting.default);
  return given === undefined ? "" : code(typeof given === "string" ? given : JSON.stringify(given));
}

function whereOf(setting: Setting): string {
  return places(setting)
    .map((p) => (p === "project file" && setting.config?.projectLowersOnly ? "project file (lower only)" : p))
    .join(", ");
}

/** The Markdown of docs/settings.md. */
export function settingsDoc(table: SettingsTable): string {
  const lines = table.map((s) => {
    const flag = s.flag ? code(`${s.flag.short ? `-${s.flag.short}, ` : ""}--${s.key}${s.flag.value ? ` ${s.flag.value}` : ""}`) : "";
    const help = s.flag?.help ?? s.config?.help ?? s.about ?? "";
    return `| ${code(s.key)} | ${cell(flag)} | ${s.env ? code(s.env) : ""} | ${whereOf(s)} | ${cell(defaultOf(s))} | ${s.widens ? (s.widensWhen ? `when ${s.widensWhen}` : "yes") : ""} | ${cell(help)} |`;
  });
  return [
    "# Settings",
    "",
    "Generated from `src/settings/table.ts` (`HEL_WRITE_DOCS=1 npx vitest run test/settings/docs.test.ts` rewrites it): edit the table, not this file.",
    "",
    "A flag wins over its environment variable, which wins over the project's `.hel/config.json`, which wins over the user's",
    "`~/.config/hel/config.json` (`$XDG_CONFIG_HOME/hel/config.json`); a config file's keys are the long flag names.",
    'A project file\'s setting marked "needs trust" is used only once you trust the project (hel asks in a terminal; `--trust` trusts it for',
    "one run). `hel config` prints each setting's value here and where it came from.",
    "",
    "| setting | flag | environment | may be set in | default | needs trust | what it does |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...lines,
    "",
  ].join("\n");
}
