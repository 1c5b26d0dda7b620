// What a conversation is opened from: the project as cli/open-project.ts opened it (its root, the settings
// with the config files applied, the user's and the project's own files read), and where the run
// reads and writes besides its files.
import type { NamedAgent } from "../agent/children/named-agent.js";
import type { Diagnostic } from "../diagnostics.js";
import type { CommandFile } from "../resources/commands.js";
import type { HooksConfig } from "../hooks/hook-config.js";
import type { ApiConnections } from "../model/early-connection.js";
import type { Output } from "../output.js";
import type { RunOptions } from "../settings/run-options.js";
import type { SkillFolder } from "../tools/types.js";

/** Where a run reads and writes, besides its files: the process's streams and environment, or a test's. */
export interface Io {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** The folder the user is in, for the resume line. */
  cwd: string;
}

export interface Project {
  /** The project root (real path): the files the session works on. */
  dir: string;
  /** Where the sessions are kept when not in `dir`: the main project's, for a session in its own worktree (`hel -w`). */
  sessionsDir?: string;
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
  /** The named agents delegate_task offers (resources/agents.ts). */
  agents: readonly NamedAgent[];
  /** The skill folders the system prompt lists, which read_file may read. */
  skillDirs: readonly SkillFolder[];
  /** The folder of the user's own memory facts (`memory/` in the user's hel folder, design §19). */
  userMemoryDir: string;
  /** The command files of the project and of the user (resources/commands.ts). */
  commands: readonly CommandFile[];
  /** What of the user's and the project's own files could not be used; printed on stderr as they were read, for an editor to show too. */
  diagnostics: readonly Diagnostic[];
  /** Prints `hel: <line>` on stderr. */
  warn(line: string): void;
  /** The connections to the API, one opened while the project was read, for the first request. */
  connections?: ApiConnections;
}
