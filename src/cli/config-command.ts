// `hel [flags] config [--json]`: every setting's effective value for the project at -C and where it
// came from (flag, environment, project file, user file, default), as a run there would settle them:
// the flags given before the command count as flags. Nothing is asked (a project's widening settings
// that are not already trusted show as ignored) and nothing is started or sent. Loaded only for this command.
import { homedir } from "node:os";
import { HelError } from "../errors.js";
import { readGivenServers } from "../mcp/config.js";
import { redactSecrets } from "../redact.js";
import { reportLines, SettingReportSchema, settingsReport } from "../settings/report.js";
import { SETTINGS } from "../settings/table.js";
import { credentialValues } from "../tools/command/environment.js";
import { applyConfig, userConfigDir } from "./config.js";
import type { RunOptions } from "./options.js";
import { realStartDir } from "./open-project.js";
import { findProjectRoot, refusedRoot } from "../conversation/project-root.js";
import type { Output } from "../output.js";
import { settledConfig } from "./trust.js";

export async function runConfigCommand(flags: RunOptions, json: boolean, io: { stdout: Output; stderr: Output; env: NodeJS.ProcessEnv }): Promise<number> {
  const { root: dir } = await findProjectRoot(await realStartDir(flags.cwd));
  const refused = refusedRoot(dir, io.env.HOME || homedir(), userConfigDir(io.env));
  if (refused) throw new HelError(refused, 2);
  const secrets = [...(io.env.DEEPSEEK_API_KEY ? [io.env.DEEPSEEK_API_KEY] : []), ...credentialValues(io.env)];
  const warn = (line: string) => io.stderr.write(`hel: ${redactSecrets(line, secrets)}\n`);
  const settled = await settledConfig({ projectDir: dir, flags, env: io.env, ask: null, report: (d) => warn(d.problem) });
  const configured = applyConfig(flags, settled.config, settled.from);
  const given = flags.mcpConfig ? await readGivenServers(flags.mcpConfig) : {};
  const options = Object.keys(given).length > 0 ? { ...configured, mcpServers: { ...configured.mcpServers, ...given }, origin: { ...configured.origin, "mcp-servers": "flag" as const } } : configured;
  const report = SettingReportSchema.parse(settingsReport(SETTINGS, { ...settled, options }));
  const text = json ? `${JSON.stringify(report, null, 2)}\n` : `${reportLines(report).join("\n")}\n`;
  io.stdout.write(redactSecrets(text, secrets));
  return 0;
}
