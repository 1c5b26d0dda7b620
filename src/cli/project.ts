// Opening a project for a conversation: the folder the run starts in (a real path, so path checks
// cannot be led out by a symlink), the project root above it, the options with the config files
// applied, the user's hooks (and a trusted project's), a .hel/ the session can be saved in, the
// project's rules and skills with the API key taken out, the system prompt, and the named agents.
// Everything here is read once per conversation; nothing is sent or started, except, for a run whose
// first request follows at once, a connection to the API (model/early-connection.ts), opened as
// soon as the settings say where it goes, so that its handshakes overlap the reading.
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { buildSystemPrompt, isoDay, loadProjectRules } from "../agent/system-prompt.js";
import { helDirProblem } from "../fs/hel-dir.js";
import { redactSecrets } from "../redact.js";
import { HelError } from "../errors.js";
import { errorText } from "./term/kit/style.js";
import { credentialValues } from "../tools/command/environment.js";
import { loadSkills } from "../agent/skills.js";
import type { SkillFolder } from "../tools/types.js";
import { applyConfig, userConfigDir } from "./config.js";
import { readGivenServers } from "../mcp/config.js";
import { settledConfig } from "./trust.js";
import { readOnlyProgramPaths } from "./trust-programs.js";
import type { RunOptions } from "./options.js";
import type { HooksConfig } from "../hooks/hook-config.js";
import { findProjectRoot, refusedRoot } from "./project-root.js";
import { loadNamedAgents } from "./named-agents.js";
import type { NamedAgent } from "../agent/children/named-agent.js";
import type { Output } from "./term/kit/output.js";
import { apiConnections, type ApiConnections } from "../model/early-connection.js";

/** Where a run reads and writes, besides its files: the process's streams and environment, or a test's. */
export interface Io {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** The folder the user is in, for the resume line. */
  cwd: string;
}

export interface Project {
  /** The project root (real path). */
  dir: string;
  /** The folder the run started in, at or below the root. */
  here: string;
  /** The flags with the config files' settings applied. */
  options: RunOptions;
  apiKey: string;
  /** Masked wherever they would go but the Authorization header: the key, and what commands may not see. */
  secrets: string[];
  systemPrompt: string;
  /** The hooks of the user's config and of a trusted project's; absent: none. */
  hooks?: HooksConfig;
  /**
   * What the sandbox keeps read-only wherever it is: the user's config folder (a command must not plant
   * a hook there, even with it inside the project) and the files the hooks and MCP servers run.
   */
  readOnly: string[];
  /** The named agents delegate_task offers (named-agents.ts). */
  agents: readonly NamedAgent[];
  /** The skill folders the system prompt lists, which read_file may read. */
  skillDirs: readonly SkillFolder[];
  /** Prints `hel: <line>` on stderr. */
  warn(line: string): void;
  /** The connections to the API, one opened while the project was read, for the first request. */
  connections?: ApiConnections;
}

/** `connectEarly`: the first request follows the opening at once (an instruction given, stdin's lines), so the API's connection is opened during it. */
export async function openProject(flags: RunOptions, apiKey: string, io: Io, connectEarly = false): Promise<Project> {
  const { root: dir, here } = await findProjectRoot(await realStartDir(flags.cwd));
  const refused = refusedRoot(dir, io.env.HOME || homedir(), userConfigDir(io.env));
  if (refused) throw new HelError(refused, 2);
  const secrets = [apiKey, ...credentialValues(io.env)];
  const warn = (line: string) => io.stderr.write(`hel: ${errorText(redactSecrets(line, secrets))}\n`);
  // The project's own settings that widen what hel does are taken only once the user trusts it (trust.ts).
  const ask = async (question: string) => (await import("./trust-question.js")).askOnTerminal(question);
  // The user's own typing: a bad file is a usage error before anything else is asked.
  const given = flags.mcpConfig ? await readGivenServers(flags.mcpConfig) : {};
  const { config, from } = await settledConfig({ projectDir: dir, flags, env: io.env, ask: process.stdin.isTTY ? ask : null, warn });
  const configured = applyConfig(flags, config, from);
  const options = { ...configured, mcpServers: { ...configured.mcpServers, ...given } };
  const programs = config.hooks || Object.keys(options.mcpServers).length > 0 ? await readOnlyProgramPaths(dir, { hooks: config.hooks, "mcp-servers": options.mcpServers }) : [];
  // Only once trust has settled the base URL: an untrusted project's own must not be reached.
  const connections = connectEarly ? apiConnections(options.baseUrl) : null;
  connections?.open();
  const unwritable = await helDirProblem(dir);
  if (unwritable) throw new HelError(`${unwritable}, so hel could not save this session — make it writable, or run hel in a project you can write`, 1);
  const loaded = await loadProjectRules(dir, here, warn);
  // The rules go into every request and the snapshot: a key pasted into HEL.md must not go with them.
  const rules = loaded.map((r) => ({ ...r, text: redactSecrets(r.text, secrets) }));
  // Skills are the project's (or the user's) own text, as rules are: listed with no trust asked, the key masked.
  const found = await loadSkills({ projectDir: dir, userDir: userConfigDir(io.env), secrets, warn });
  const skills = found.map((s) => ({ ...s, path: redactSecrets(s.path, secrets) }));
  const systemPrompt = buildSystemPrompt({ projectDir: dir, here, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules, skills });
  const agents = loadNamedAgents({ projectDir: dir, env: io.env, access: options.access, secrets, warn });
  // Agents are written to be handed work: with some, delegate_task is offered without --delegate too,
  // a plain delegation seeing only its task, as an agent does unless its file says otherwise.
  const delegating = agents.length > 0 && options.delegate === null ? { ...options, delegate: "task-only" as const } : options;
  const readOnly = [userConfigDir(io.env), ...programs];
  return {
    dir,
    here,
    options: delegating,
    apiKey,
    secrets,
    systemPrompt,
    agents,
    skillDirs: found.map((s) => s.folder),
    warn,
    readOnly,
    ...(config.hooks ? { hooks: config.hooks } : {}),
    ...(connections ? { connections } : {}),
  };
}

/** The starting folder's real path: path checks compare real paths, so symlinks cannot lead out. */
export async function realStartDir(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new HelError(`the project directory ${dir} does not exist or is not a directory — check -C`, 2);
  return realpath(dir);
}
