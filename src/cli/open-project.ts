// Opening a project for a conversation: the folder the run starts in (a real path, so path checks
// cannot be led out by a symlink), the project root above it, the options with the config files
// applied, a .hel/ the session can be saved in, the user's and the project's own files
// (resources/: rules, skills, named agents, command files, the hooks and MCP servers trust let through)
// with the API key taken out, whose diagnostics are printed as warnings, and the system prompt.
// Everything here is read once per conversation; nothing is sent or started, except, for a run whose
// first request follows at once, a connection to the API (model/early-connection.ts), opened as
// soon as the settings say where it goes, so that its handshakes overlap the reading.
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { buildSystemPrompt, isoDay } from "../agent/system-prompt.js";
import { helDirProblem } from "../fs/hel-dir.js";
import { redactSecrets } from "../redact.js";
import type { Diagnostic } from "../diagnostics.js";
import { HelError } from "../errors.js";
import { errorText } from "./term/kit/style.js";
import { credentialValues } from "../tools/command/environment.js";
import { loadResources } from "../resources/resources.js";
import { runServers } from "../resources/servers.js";
import { isBuiltInCommand } from "./slash-commands.js";
import { applyConfig, userConfigDir } from "./config.js";
import { readGivenServers } from "../mcp/config.js";
import { settledConfig } from "./trust.js";
import { readOnlyProgramPaths } from "./trust-programs.js";
import type { RunOptions } from "./options.js";
import { findProjectRoot, refusedRoot } from "../conversation/project-root.js";
import { apiConnections } from "../model/early-connection.js";
import { recoverMerges } from "../worktrees/journal.js";
import { sessionPlace } from "./session-worktree.js";
import type { Io, Project } from "../conversation/project.js";

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
  // Each problem is printed as it is found, before the trust question; an editor is shown them too.
  const diagnostics: Diagnostic[] = [];
  const report = (d: Diagnostic) => {
    diagnostics.push(d);
    warn(d.problem);
  };
  const { config, from } = await settledConfig({ projectDir: dir, flags, env: io.env, ask: process.stdin.isTTY ? ask : null, report });
  const configured = applyConfig(flags, config, from);
  const options = { ...configured, mcpServers: runServers(configured.mcpServers, given) };
  const programs = config.hooks || Object.keys(options.mcpServers).length > 0 ? await readOnlyProgramPaths(dir, { hooks: config.hooks, "mcp-servers": options.mcpServers }) : [];
  // Only once trust has settled the base URL: an untrusted project's own must not be reached.
  const connections = connectEarly ? apiConnections(options.baseUrl) : null;
  connections?.open();
  const unwritable = await helDirProblem(dir);
  if (unwritable) throw new HelError(`${unwritable}, so hel could not save this session — make it writable, or run hel in a project you can write`, 1);
  // A merge of a worktree that a killed hel left half done is finished or rolled back before anything reads the files.
  const recovered = await recoverMerges(dir, io.env).catch((e: Error) => `could not settle an interrupted worktree merge: ${e.message}`);
  if (recovered) warn(recovered);
  // With -w (or resuming a session that had one) the session works in its own worktree; its records stay here.
  const place = await sessionPlace(dir, here, flags, io.env);
  if (place.worktree) warn(`this session works in its worktree .hel/worktrees/${place.worktree} (branch hel/${place.worktree}); \`hel worktrees merge ${place.worktree}\` brings its changes in`);
  // The project's own text (rules, skills, agents, commands) needs no trust: each is listed or sent as it is, the key masked.
  const resources = await loadResources({
    projectDir: place.dir,
    here: place.here,
    userDir: userConfigDir(io.env),
    secrets,
    access: options.access,
    reservedCommand: isBuiltInCommand,
    servers: options.mcpServers,
    ...(config.hooks ? { hooks: config.hooks } : {}),
  });
  for (const d of resources.diagnostics) report(d);
  const { rules, skills, agents } = resources;
  const systemPrompt = buildSystemPrompt({ projectDir: place.dir, here: place.here, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules, skills });
  // Agents are written to be handed work: with some, delegate_task is offered without --delegate too,
  // a plain delegation seeing only its task, as an agent does unless its file says otherwise.
  const delegating = agents.length > 0 && options.delegate === null ? { ...options, delegate: "task-only" as const } : options;
  const readOnly = [userConfigDir(io.env), ...programs];
  return {
    dir: place.dir,
    here: place.here,
    ...(place.sessionsDir ? { sessionsDir: place.sessionsDir } : {}),
    options: delegating,
    apiKey,
    secrets,
    systemPrompt,
    agents,
    skillDirs: skills.map((s) => s.folder),
    commands: resources.commands,
    userMemoryDir: join(userConfigDir(io.env), "memory"),
    diagnostics,
    warn,
    readOnly,
    ...(resources.hooks ? { hooks: resources.hooks } : {}),
    ...(connections ? { connections } : {}),
  };
}

/** The starting folder's real path: path checks compare real paths, so symlinks cannot lead out. */
export async function realStartDir(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new HelError(`the project directory ${dir} does not exist or is not a directory — check -C`, 2);
  return realpath(dir);
}
