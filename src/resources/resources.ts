// The user's and the project's own files, loaded once per conversation as data: the project's rules,
// the skills and named agents of both (each kept in the start-up memo, fs/file-memo.ts), the command
// files, and the hooks and MCP servers that trust let through (cli/trust.ts reads those). What could not
// be used comes back as diagnostics, for the front end to show: nothing is printed here. Everything that
// goes into requests has the run's secrets masked.
import type { NamedAgent } from "../agent/children/named-agent.js";
import type { Skill } from "../agent/skill-listing.js";
import type { ProjectRules } from "../agent/system-prompt.js";
import type { Diagnostic } from "../diagnostics.js";
import type { HooksConfig } from "../hooks/hook-config.js";
import type { ServerMap } from "../mcp/config.js";
import { redactSecrets } from "../redact.js";
import type { Access } from "../tools/types.js";
import { loadNamedAgents } from "./agents.js";
import { loadCommandFiles, type CommandFile } from "./commands.js";
import { loadProjectRules } from "./rules.js";
import { loadSkills } from "./skills.js";

export interface ResourceSettings {
  /** The project root (a real path), and the folder the run started in, relative to it. */
  projectDir: string;
  here: string;
  /** hel's folder of the user's files. */
  userDir: string;
  /** Masked wherever a file's text goes into requests, the memo or a path shown. */
  secrets: readonly string[];
  /** The session's access: no agent runs with more. */
  access: Access;
  /** Whether a front end keeps this name for a command of its own, so no command file may take it. */
  reservedCommand(name: string): boolean;
  /** The hooks trust let through: the user's, and a trusted project's. */
  hooks?: HooksConfig;
  /** The MCP servers a run may start (servers.ts). */
  servers: ServerMap;
}

export interface Resources {
  /** Root first, nearest last. */
  rules: ProjectRules[];
  skills: Skill[];
  agents: NamedAgent[];
  commands: CommandFile[];
  hooks?: HooksConfig;
  servers: ServerMap;
  /** In the order the files were read: rules, skills, agents, command files. */
  diagnostics: Diagnostic[];
}

export async function loadResources(settings: ResourceSettings): Promise<Resources> {
  const { projectDir, here, userDir, secrets, access } = settings;
  const rules = loadProjectRules(projectDir, here, secrets);
  const found = loadSkills({ projectDir, userDir, secrets });
  const agents = loadNamedAgents({ projectDir, userDir, access, secrets });
  const commands = loadCommandFiles({ projectDir, userDir, reserved: settings.reservedCommand });
  const diagnostics = [...rules.diagnostics, ...found.diagnostics, ...agents.diagnostics, ...commands.diagnostics];
  return {
    rules: rules.rules,
    // A skill's path goes into the system prompt; its folder is where read_file looks, as it is.
    skills: found.skills.map((s) => ({ ...s, path: redactSecrets(s.path, secrets) })),
    agents: agents.agents,
    commands: commands.commands,
    ...(settings.hooks ? { hooks: settings.hooks } : {}),
    servers: settings.servers,
    diagnostics: diagnostics.map((d) => ({ file: redactSecrets(d.file, secrets), problem: redactSecrets(d.problem, secrets) })),
  };
}
