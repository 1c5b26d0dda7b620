// Adding a setting is adding a row: a made-up row in a copy of the table shows up in everything derived
// from the table: a flag commander parses (and its --help), its environment variable, a config key the
// file schema accepts and rejects in the row's words, the --help settings paragraph, trust (a widening
// row is left out of an untrusted project), the docs table and `hel config`'s report.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { applyConfig } from "../../src/cli/config.js";
import { parseArgs, type RunOptions } from "../../src/cli/options.js";
import { settledConfig, widening } from "../../src/cli/trust.js";
import { checkedConfig, configFileSchema } from "../../src/settings/config-schema.js";
import { settingsDoc } from "../../src/settings/docs.js";
import { addSettingFlags, flagOrigins, flagValues } from "../../src/settings/flags.js";
import { settingsHelp } from "../../src/settings/help.js";
import { reportLines, settingsReport } from "../../src/settings/report.js";
import { runOptionsSchema } from "../../src/settings/run-options.js";
import { SETTINGS, type Setting } from "../../src/settings/table.js";
import { z } from "../../src/zod.js";
import { tempProject } from "../helpers/temp-project.js";

const WIDGETS: Setting = {
  key: "max-widgets",
  type: z.coerce.number({ error: "--max-widgets takes a whole number" }).int("--max-widgets takes a whole number"),
  flag: { value: "<n>", help: "widgets the model may make per turn", default: "3" },
  env: "HEL_MAX_WIDGETS",
  config: { type: z.int("must be a whole number of widgets") },
  widens: (value, user) => (value as number) > ((user["max-widgets"] as number | undefined) ?? 3),
  widensWhen: "more than the user's (or 3)",
};
const TABLE = [...SETTINGS, WIDGETS];

/** The command line of a run with the fixture's table: its run options, checked as parseArgs checks them. */
function parse(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const command = addSettingFlags(new Command("hel").exitOverride(), TABLE, env);
  command.parse(argv, { from: "user" });
  const options = runOptionsSchema(TABLE).parse({ prompt: [], pickSession: false, ...flagValues(command.opts(), TABLE), origin: flagOrigins(command, TABLE, env) });
  return { command, options };
}

describe("a row added to the table", () => {
  it("is a flag commander parses, with its help, default and environment variable", () => {
    expect(parse(["--max-widgets", "7"]).options).toMatchObject({ maxWidgets: 7, origin: { "max-widgets": "flag" } });
    expect(parse([]).options).toMatchObject({ maxWidgets: 3 });
    expect(parse([], { HEL_MAX_WIDGETS: "5" }).options.origin).toEqual({ "max-widgets": "env" });
    expect(() => parse(["--max-widgets", "x"])).toThrow("--max-widgets takes a whole number");
    expect(parse([]).command.helpInformation().replace(/\s+/g, " ")).toContain('--max-widgets <n> widgets the model may make per turn (env HEL_MAX_WIDGETS) (default: "3")');
  });

  it("is a config key the file schema accepts, and rejects with the row's words", () => {
    const schema = configFileSchema(TABLE);
    expect(checkedConfig(schema, { "max-widgets": 2 }, "c.json")).toEqual({ "max-widgets": 2 });
    expect(() => checkedConfig(schema, { "max-widgets": 2.5 }, "c.json")).toThrow('the config file c.json has a bad value for "max-widgets": must be a whole number of widgets — fix it or remove the key');
    expect(() => checkedConfig(schema, { colour: 1 }, "c.json")).toThrow(/the keys are .*, hooks, provider, child-isolation, memory, context-window, max-widgets$/);
    // The real table knows no such key.
    expect(() => checkedConfig(configFileSchema(SETTINGS), { "max-widgets": 2 }, "c.json")).toThrow(/has an unknown key "max-widgets"/);
  });

  it("is listed in --help's settings paragraph and in the docs table", () => {
    expect(settingsHelp(TABLE).replace(/\s+/g, " ")).toContain("approval, provider, child-isolation, memory, context-window, max-widgets, checkpoint-max-mb: the disk");
    expect(settingsHelp(TABLE).replace(/\s+/g, " ")).toContain("flags and HEL_MODEL/HEL_BASE_URL/HEL_PROVIDER/HEL_MAX_WIDGETS win over");
    expect(settingsDoc(TABLE).split("\n")).toContain(
      "| `max-widgets` | `--max-widgets <n>` | `HEL_MAX_WIDGETS` | flag, user file, project file | `3` | when more than the user's (or 3) | widgets the model may make per turn |",
    );
    expect(settingsDoc(SETTINGS)).not.toContain("max-widgets");
  });

  it("widens: an untrusted project's value is left out, the user's own applies, and hel config says which", async () => {
    expect(widening(TABLE).map((s) => s.key)).toEqual(["base-url", "access", "network", "hooks", "allow", "approval", "mcp-servers", "memory", "max-widgets"]);
    const project = await tempProject();
    const home = await tempProject();
    await mkdir(join(home, "hel"));
    await writeFile(join(home, "hel", "config.json"), JSON.stringify({ "max-widgets": 4 }));
    await mkdir(join(project, ".hel"));
    await writeFile(join(project, ".hel", "config.json"), JSON.stringify({ "max-widgets": 9 }));
    const env = { XDG_CONFIG_HOME: home };
    const flags = parse(["-C", project]).options as unknown as RunOptions;
    const warnings: string[] = [];
    const settled = await settledConfig({ projectDir: project, flags, env, ask: null, report: (d) => warnings.push(d.problem) }, TABLE);
    expect(settled.config).toEqual({ "max-widgets": 4 });
    expect(settled.ignored).toEqual([{ key: "max-widgets", value: 9, why: "not trusted" }]);
    expect(warnings).toEqual([expect.stringMatching(/^ignored this project's max-widgets \(.*config\.json\): a project's own files may not widen what hel does until you trust it/)]);
    const options = applyConfig(flags, settled.config, settled.from, TABLE);
    expect(options).toMatchObject({ maxWidgets: 4, origin: { "max-widgets": "user" } });
    const lines = reportLines(settingsReport(TABLE, { ...settled, options }));
    const widgets = lines.filter((line) => line.startsWith("max-widgets "));
    expect(widgets.map((line) => line.split(/ {2,}/))).toEqual([
      ["max-widgets", "user file", "4"],
      ["max-widgets", "project file (not trusted: ignored)", "9"],
    ]);
    // Aligned: the values start in one column.
    expect(widgets.map((line) => line.length - 1)).toEqual([widgets[1]!.length - 1, widgets[1]!.length - 1]);
    // Trusted for the run, the project's value wins.
    const trusted = await settledConfig({ projectDir: project, flags: { ...flags, trust: true }, env, ask: null, report: () => undefined }, TABLE);
    expect(applyConfig(flags, trusted.config, trusted.from, TABLE)).toMatchObject({ maxWidgets: 9, origin: { "max-widgets": "project" } });
  });
});

it("the real table's flags parse as hel's command line does", () => {
  const invocation = parseArgs(["--max-cost", "0.5", "--tools", "grep,grep", "hi"], { HEL_MODEL: "m" }, "test");
  if (invocation.kind !== "run") throw new Error("not a run");
  expect(invocation.options).toMatchObject({ maxCost: 0.5, tools: ["grep"], model: "m", checkpointMaxMb: 1024, mcpTimeout: 60, allow: [], origin: { "max-cost": "flag", tools: "flag", model: "env" } });
});
