// The named agents of a run: every `<name>.md` in the user's agents folder (hel's config folder) and in
// the project's `.hel/agents/`, the project's winning where both name one, sorted by name. A file that
// is not a valid agent is skipped with one warning naming it and what is wrong; an agent that asks
// for more access than the session has runs with the session's, and a warning says so.
//
// A project's agents need no trust (cli/trust.ts): each only narrows what a child of this session
// does (what it sees, which tools it may call, its steps within --child-max-steps, its access within
// the session's), and a model is a narrowing setting too. Their text goes into requests, so the
// project's files are read only as regular files inside the project, never through a symbolic link.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { AgentFileProblem, parseAgentFile, withinAccess, type NamedAgent } from "../agent/children/named-agent.js";
import { helDir } from "../fs/hel-dir.js";
import { readProblem, readRegularFileSync } from "../fs/regular-file.js";
import { redactSecrets } from "../redact.js";
import type { Access } from "../tools/types.js";
import { userConfigDir } from "./config.js";

/** An agent file is a page of instructions; anything near this size is not one. */
const MAX_AGENT_BYTES = 64 * 1024;

export interface AgentsSettings {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** The session's access: no agent runs with more. */
  access: Access;
  /** Masked in the agents' text, which goes into requests. */
  secrets: readonly string[];
  warn(line: string): void;
}

interface AgentFile {
  name: string;
  path: string;
  /** The user's own files may be links; the project's may not. */
  follow: boolean;
}

async function agentFiles(dir: string, follow: boolean, warn: (line: string) => void): Promise<AgentFile[]> {
  // The project's folder itself must not lead out of the project.
  if (!follow) {
    const info = await lstat(dir).catch(() => null);
    if (info?.isSymbolicLink()) warn(`${dir} is a symbolic link, which hel does not follow in a project — its agents are skipped`);
    if (!info?.isDirectory()) return [];
  }
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".md")).map((n) => ({ name: n.slice(0, -".md".length), path: join(dir, n), follow }));
}

export async function loadNamedAgents(settings: AgentsSettings): Promise<NamedAgent[]> {
  const [user, project] = await Promise.all([
    agentFiles(join(userConfigDir(settings.env), "agents"), true, settings.warn),
    agentFiles(join(helDir(settings.projectDir), "agents"), false, settings.warn),
  ]);
  const chosen = new Map<string, AgentFile>();
  for (const file of [...user, ...project]) chosen.set(file.name, file);
  const files = [...chosen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const agents: NamedAgent[] = [];
  for (const file of files) {
    const { agent, warning } = loadOne(file, settings);
    if (warning) settings.warn(warning);
    if (agent) agents.push(agent);
  }
  return agents;
}

// Read synchronously: hundreds of small files, each a trip to the thread pool, would delay the first request.
function loadOne(file: AgentFile, settings: AgentsSettings): { agent: NamedAgent | null; warning: string | null } {
  let text: string;
  try {
    text = readRegularFileSync(file.path, MAX_AGENT_BYTES, file.follow);
  } catch (e) {
    const problem = (e as NodeJS.ErrnoException).code === "ELOOP" && !file.follow ? "is a symbolic link, which hel does not follow in a project's .hel/agents/" : readProblem(e);
    return { agent: null, warning: `the agent file ${file.path} ${problem} — the agent is skipped` };
  }
  let parsed: NamedAgent;
  try {
    parsed = parseAgentFile(file.name, redactSecrets(text, settings.secrets));
  } catch (e) {
    if (!(e instanceof AgentFileProblem)) throw e;
    return { agent: null, warning: `the agent file ${file.path} is skipped: ${e.message} — fix it or remove it` };
  }
  const { agent, clamped } = withinAccess(parsed, settings.access);
  return { agent, warning: clamped && `the agent ${agent.name} (${file.path}) ${clamped}` };
}
