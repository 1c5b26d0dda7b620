// The named agents of a run: every `<name>.md` in the user's agents folder (hel's config folder) and in
// the project's `.hel/agents/`, the project's winning where both name one (precedence.ts), sorted by
// name. A file that is not a valid agent is skipped with one diagnostic naming it and what is wrong; an
// agent that asks for more access than the session has runs with the session's, and a diagnostic says so.
//
// A project's agents need no trust (cli/trust.ts): each only narrows what a child of this session
// does (what it sees, which tools it may call, its steps within --child-max-steps, its access within
// the session's), and a model is a narrowing setting too. Their text goes into requests, so the
// project's files are read only as regular files inside the project, never through a symbolic link
// (read-beneath.ts); the user's may be links.
import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.js";
import { AGENT_FILE_CHECKS, AgentFileProblem, parseAgentFile, withinAccess, type NamedAgent } from "../agent/children/named-agent.js";
import { FileMemo } from "../fs/file-memo.js";
import { helDir } from "../fs/hel-dir.js";
import { quietStat } from "../fs/quiet-stat.js";
import { readProblem } from "../fs/regular-file.js";
import { redactSecrets } from "../redact.js";
import type { Access } from "../tools/types.js";
import { byPrecedence, type Scope } from "./precedence.js";
import { OpenFolder } from "./read-beneath.js";

/** An agent file is a page of instructions; anything near this size is not one. */
const MAX_AGENT_BYTES = 64 * 1024;

/** What a kept agent was checked against: the file's checks, and this module as built, which words the diagnostics kept. */
const KEPT_AGENT_CHECKS = `${AGENT_FILE_CHECKS} ${import.meta.url}`;

export interface AgentsSettings {
  projectDir: string;
  /** hel's folder of the user's files. */
  userDir: string;
  /** The session's access: no agent runs with more. */
  access: Access;
  /** Masked in the agents' text, which goes into requests and the memo. */
  secrets: readonly string[];
  /** When this start reads the files (fs/file-memo.ts); a test gives a later one. */
  now?: number;
}

interface AgentFile {
  scope: Scope;
  name: string;
  /** Its folder, and its name in it. */
  dir: string;
  entry: string;
  path: string;
  /** The user's own files may be links; the project's may not. */
  follow: boolean;
}

function agentFiles(dir: string, scope: Scope, diagnostics: Diagnostic[]): AgentFile[] {
  const follow = scope === "user";
  // The project's folder itself must not lead out of the project. (Asked without an exception: most
  // have no agents, and an exception costs a start more than the call.)
  let names: string[];
  try {
    const info = quietStat(dir, follow);
    if (!follow && info?.isSymbolicLink()) diagnostics.push({ file: dir, problem: `${dir} is a symbolic link, which hel does not follow in a project — its agents are skipped` });
    if (!info?.isDirectory()) return [];
    names = readdirSync(dir);
  } catch {
    return [];
  }
  // Joined by hand: path.join would normalize each of hundreds of paths again.
  return names.filter((n) => n.endsWith(".md")).map((n) => ({ scope, name: n.slice(0, -".md".length), dir, entry: n, path: `${dir}${sep}${n}`, follow }));
}

// Read synchronously: hundreds of small files, each a trip to the thread pool, would delay the first request.
export function loadNamedAgents(settings: AgentsSettings): { agents: NamedAgent[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const user = agentFiles(join(settings.userDir, "agents"), "user", diagnostics);
  const project = agentFiles(join(helDir(settings.projectDir), "agents"), "project", diagnostics);
  const chosen = byPrecedence([...user, ...project], (file) => file.name);
  // The native sort of the names: a comparator called for each pair of hundreds is what a start notices.
  const files = [...chosen.keys()].sort().map((name) => chosen.get(name)!);
  const agents: NamedAgent[] = [];
  if (files.length === 0) return { agents, diagnostics };
  const memo = FileMemo.open<KeptAgent>(settings.projectDir, "agents", { stamp: KEPT_AGENT_CHECKS, secrets: settings.secrets, now: settings.now });
  const folders = new Folders(settings.projectDir);
  for (const file of files) {
    const loaded = loadOne(file, settings, memo, folders);
    if (typeof loaded === "string") {
      diagnostics.push({ file: file.path, problem: loaded });
      continue;
    }
    const { agent, clamped } = withinAccess(loaded, settings.access);
    if (clamped) diagnostics.push({ file: file.path, problem: `the agent ${agent.name} (${file.path}) ${clamped}` });
    agents.push(agent);
  }
  folders.close();
  memo.save();
  return { agents, diagnostics };
}

/** Each agents folder opened once, when a file in it is first read: the project's from its root, without following a symlink. */
class Folders {
  private readonly opened = new Map<string, OpenFolder | Error>();
  constructor(private readonly projectDir: string) {}

  of(file: AgentFile): OpenFolder {
    let folder = this.opened.get(file.dir);
    if (folder === undefined) {
      try {
        folder = file.scope === "project" ? OpenFolder.open(this.projectDir, [".hel", "agents"]) : OpenFolder.open(file.dir);
      } catch (e) {
        folder = e as Error;
      }
      this.opened.set(file.dir, folder);
    }
    if (folder instanceof Error) throw folder;
    return folder;
  }

  close(): void {
    for (const folder of this.opened.values()) if (folder instanceof OpenFolder) folder.close();
  }
}

/** What a start keeps of an agent file for the next, once checked: the agent it makes, or the diagnostic's line when it makes none; masked. */
type KeptAgent = NamedAgent | string;

/** The agent a file makes, before the session's access, or the diagnostic's line when it makes none. */
function loadOne(file: AgentFile, settings: AgentsSettings, memo: FileMemo<KeptAgent>, folders: Folders): KeptAgent {
  // None when it cannot be had: the read says why.
  const stats = quietStat(file.path, file.follow);
  const kept = stats?.isFile() ? memo.get(file.path, stats) : undefined;
  if (kept !== undefined) return kept;
  const unread = (problem: string) => `the agent file ${file.path} ${problem} — the agent is skipped`;
  let text: string | null;
  try {
    text = folders.of(file).read(file.entry, MAX_AGENT_BYTES, file.follow);
  } catch (e) {
    return unread((e as NodeJS.ErrnoException).code === "ELOOP" && !file.follow ? "is a symbolic link, which hel does not follow in a project's .hel/agents/" : readProblem(e));
  }
  // Gone since it was listed.
  if (text === null) return unread("cannot be read (ENOENT)");
  let loaded: KeptAgent;
  try {
    loaded = parseAgentFile(file.name, redactSecrets(text, settings.secrets));
  } catch (e) {
    if (!(e instanceof AgentFileProblem)) throw e;
    loaded = redactSecrets(`the agent file ${file.path} is skipped: ${e.message} — fix it or remove it`, settings.secrets);
  }
  // Kept whatever its text makes of it: a file that could be read reads the same until it changes.
  if (stats?.isFile()) memo.put(file.path, stats, loaded);
  return loaded;
}
