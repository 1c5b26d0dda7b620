// `hel config [--json]`: each setting's effective value for the project at -C and where it came from,
// settled as a run's would be but without asking, starting or sending anything; flags before the
// command count as flags; a project's widening settings that are not trusted show as ignored; secrets
// are never printed.
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runConfigCommand } from "../../src/cli/config-command.js";
import { parseArgs } from "../../src/cli/options.js";
import { SettingReportSchema } from "../../src/settings/report.js";
import { tempProject } from "../helpers/temp-project.js";

/** `hel <args>` in this process with the user's and the project's config files: what it printed. */
async function helConfig(args: string[], files: { user?: object; project?: object }, env: NodeJS.ProcessEnv = {}) {
  const project = await tempProject();
  const home = await tempProject();
  if (files.user) {
    await mkdir(join(home, "hel"));
    await writeFile(join(home, "hel", "config.json"), JSON.stringify(files.user));
  }
  if (files.project) {
    await mkdir(join(project, ".hel"));
    await writeFile(join(project, ".hel", "config.json"), JSON.stringify(files.project));
  }
  const fullEnv = { XDG_CONFIG_HOME: home, HOME: home, ...env };
  const invocation = parseArgs(["-C", project, ...args], fullEnv, "test");
  if (invocation.kind !== "config") throw new Error(`not hel config: ${args.join(" ")}`);
  let stdout = "";
  let stderr = "";
  const code = await runConfigCommand(invocation.options, invocation.json, { stdout: { write: (t) => void (stdout += t) }, stderr: { write: (t) => void (stderr += t) }, env: fullEnv });
  return { code, stdout, stderr, project, home };
}

/** The plain form's lines as [key, origin, value]. */
const columns = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((line) => line.split(/ {2,}/));

it("says where each setting came from: flag, environment, project file, user file, default", async () => {
  const run = await helConfig(["--model", "deepseek-v4-pro", "config"], { user: { "child-model": "small", effort: "low" }, project: { effort: "none", "compact-at": 500 } }, { HEL_BASE_URL: "https://proxy.example" });
  expect(run.code).toBe(0);
  const lines = columns(run.stdout);
  const of = (key: string) => lines.filter((l) => l[0] === key);
  expect(of("model")).toEqual([["model", "flag", "deepseek-v4-pro"]]);
  expect(of("base-url")).toEqual([["base-url", "environment", "https://proxy.example"]]);
  expect(of("effort")).toEqual([["effort", "project file", "none"]]);
  expect(of("compact-at")).toEqual([["compact-at", "project file", "500"]]);
  expect(of("child-model")).toEqual([["child-model", "user file", "small"]]);
  expect(of("max-steps")).toEqual([["max-steps", "default", "50"]]);
  expect(of("hooks")).toEqual([["hooks", "default", "null"]]);
  // What an invocation does is no setting.
  expect(lines.map((l) => l[0])).not.toContain("json");
  // One aligned line per setting.
  expect(
    new Set(
      run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.indexOf(`  ${line.split(/ {2,}/)[1]!}`)),
    ),
  ).toHaveLength(1);
});

it("--json: a report a script reads; an untrusted project's widening settings are ignored, never trusted by themselves, and nothing is asked or started", async () => {
  const project = {
    network: true,
    "max-cost": 50,
    hooks: { SessionStart: [{ command: "touch started" }] },
    "mcp-servers": { theirs: { command: "srv", env: { TOKEN: "project-token-1234" } } },
  };
  const user = { "max-cost": 2, "mcp-servers": { mine: { type: "http", url: "https://mcp.example", headers: { Authorization: "Bearer user-token-5678" } } } };
  const run = await helConfig(["config", "--json"], { user, project });
  expect(run.code).toBe(0);
  const report = SettingReportSchema.parse(JSON.parse(run.stdout));
  const of = (key: string) => report.settings.filter((s) => s.key === key);
  expect(of("network")).toEqual([
    { key: "network", value: false, origin: "default" },
    { key: "network", value: true, origin: "project", ignored: "not trusted" },
  ]);
  expect(of("max-cost")).toEqual([
    { key: "max-cost", value: 2, origin: "user" },
    { key: "max-cost", value: 50, origin: "project", ignored: "raises your limit" },
  ]);
  expect(of("hooks")).toEqual([
    { key: "hooks", value: null, origin: "default" },
    { key: "hooks", value: project.hooks, origin: "project", ignored: "not trusted" },
  ]);
  expect(of("mcp-servers")).toEqual([
    { key: "mcp-servers", value: { mine: { type: "http", url: "https://mcp.example", headers: { Authorization: "***" } } }, origin: "user" },
    { key: "mcp-servers", value: { theirs: { command: "srv", env: { TOKEN: "***" } } }, origin: "project", ignored: "not trusted" },
  ]);
  expect(run.stdout).not.toMatch(/token-\d/);
  // Not asked, so nothing kept; the hook did not run.
  await expect(access(join(run.home, "hel", "trusted.json"))).rejects.toThrow();
  await expect(access(join(run.project, "started"))).rejects.toThrow();
});

it("--trust before it takes the project's settings, and they say so; the API key is never printed", async () => {
  const key = "sk-test-key-0123456789";
  const run = await helConfig(["--trust", "config"], { project: { network: true, "base-url": `https://example.com/${key}` } }, { DEEPSEEK_API_KEY: key });
  const lines = columns(run.stdout);
  expect(lines.filter((l) => l[0] === "network")).toEqual([["network", "project file", "true"]]);
  expect(lines.filter((l) => l[0] === "base-url")).toEqual([["base-url", "project file", "https://example.com/[REDACTED]"]]);
  expect(run.stdout + run.stderr).not.toContain(key);
});
