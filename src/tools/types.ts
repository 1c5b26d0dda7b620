// The contract every tool implements: a name, a description for the model, a zod schema for its
// arguments (which also yields the JSON schema sent in the request), and a run function.
// A tool reports a failure the model can act on by throwing ToolError; its message is written for the model.
import type { z } from "zod";
import type { CursorStore } from "./cursors.js";
import type { FileEdit } from "../changes/file-edit.js";
import type { EditLog } from "./edit-log.js";

export const ACCESS_LEVELS = ["read-only", "edit", "full"] as const;
export type Access = (typeof ACCESS_LEVELS)[number];
/** --approval: whether the model may ask for a command to be given what the sandbox denied it. */
export const APPROVAL_MODES = ["on-request", "never"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** How a command came to be given more than the sandbox gives (what it denied, never a run without it): allow rules, the user's answer, or an earlier "always". */
export type OutsideBy = "rule" | "once" | "always" | "remembered";

/** What an allow rule or an approved escalation gives a command beyond the sandbox (command/sandbox-grant.ts), in the sandbox still. */
export interface SandboxGrant {
  network: boolean;
  /** Real paths outside the project it may write. */
  writable: string[];
}

/** One conversation's approvals (command/approvals.ts); its children share them. */
export interface CommandApprovals {
  readonly mode: ApprovalMode;
  /** The allow rules the whole command line matches, with the files it redirects into; null: none. */
  allowed(command: string): { rules: string[]; writes: string[] } | null;
  /** Told what the sandbox denied a command (joined to what was denied it before), for an escalation of it to grant. */
  denied(command: string, grant: SandboxGrant): void;
  /** What the sandbox denied the command in this conversation; null: nothing yet. */
  deniedFor(command: string): SandboxGrant | null;
  /** The user's decision on granting the command what the sandbox denied it; a front end that cannot ask says no. */
  decide(request: { command: string; justification: string; agent: string | null; grant: SandboxGrant }, signal: AbortSignal): Promise<Exclude<OutsideBy, "rule"> | "no">;
}

/** The identity of a command's process group: its id and when its leader started (Linux clock ticks since boot; null elsewhere). */
export interface ProcessGroup {
  pgid: number;
  leaderStart: string | null;
}

/** A listed skill folder: the absolute path it is listed under, and the real path it leads to. */
export interface SkillFolder {
  dir: string;
  real: string;
}

/**
 * What a tool call is given, grouped by who owns each part: the front end's policy, the session's
 * port, the change record's watch, the calling agent, and the call's own reports. Every member is
 * there; where nobody listens the value is a no-op (noReports, noChangeWatch; detached-context.ts
 * for a call outside any conversation).
 */
export interface ToolContext {
  /** Absolute, real path of the project directory (`-C`). */
  projectDir: string;
  signal: AbortSignal;
  policy: ToolPolicy;
  session: SessionPort;
  changes: ChangeWatch;
  caller: ToolCaller;
  report: ToolReport;
}

/** What every call of one agent shares: the context without the call's own signal and reports. */
export type ToolScope = Omit<ToolContext, "signal" | "report">;

/** What the front end allows the tools, from the settings and the project's trust; a child may narrow `access`. */
export interface ToolPolicy {
  access: Access;
  /** `--network`: sandboxed commands may reach the network (read-only access never gives it). */
  network: boolean;
  /** Allow rules and escalation; null: every command runs as `access` says. */
  approvals: CommandApprovals | null;
  /**
   * Kept read-only to sandboxed commands wherever they are: the files the trusted hooks and MCP
   * servers run, the user's config folder. The shell's start-up files always are.
   */
  readOnlyPaths: readonly string[];
  /** Values no tool result may show (the API key); replaced before the model or a spill file sees them. */
  secrets: readonly string[];
  /** The skill folders the system prompt lists: read_file may read inside them, wherever they are. */
  skillDirs: readonly SkillFolder[];
}

/** The session a call belongs to, as tools reach it; parent and children share one. */
export interface SessionPort {
  /** Absolute path of the session's directory, `.hel/sessions/<id>`; its `spill/` is readable. Read when a tool needs it. */
  readonly dir: string;
  /**
   * The folder whose `.hel/` holds `dir`: the project's own root, also when the tools work elsewhere (an
   * isolated child's worktree, a session's worktree), so spilled results go to the session, not the worktree.
   */
  readonly root: string;
  readonly cursors: CursorStore;
  /** Called before a tool writes into the session directory (a spill), so the session is leased first. */
  claim(): Promise<unknown>;
  /**
   * Told about each command's process group once it started, so the session counts as in use while
   * the group lives, even after hel is gone; the function it resolves to is called once the group is gone.
   */
  trackCommand(group: ProcessGroup): Promise<(() => Promise<void>) | undefined>;
  /**
   * A line to end a call's result with when its file was touched by a span of the conversation that
   * has been archived (the session keeps the archive; tools only ask), or null.
   */
  archiveHint(tool: string, args: unknown): string | null;
}

/** Told before a tool changes the project's files: the turn's checkpoint and the review's baseline. */
export interface ChangeWatch {
  /** Awaited before a call that may change the project's files (an edit, a command that may write): the turn's checkpoint. */
  beforeChange(signal: AbortSignal): Promise<void>;
  /**
   * Told a file's content (null: the file does not exist) before a tool writes it, so a review can
   * show what the session changed. `path` is relative to the project directory, with `/`.
   */
  beforeWrite(path: string, content: string | null): void;
}

/** The agent whose call this is. */
export interface ToolCaller {
  /** As a question to the user names it: null for the parent, else the child's label. */
  label: string | null;
  /**
   * This agent's view of the process's edit log: its edits are logged, a command it runs keeps the
   * edits other agents made meanwhile, and notices of its own lost edits end its next tool result.
   */
  editLog: EditLog;
}

/** What a call tells its readers besides its result (the terminal, --json-events); the model gets the text. Set per call. */
export interface ToolReport {
  /**
   * A running tool's output for a live view, cleaned and redacted: what came since the last call, or,
   * after `skippedBytes` left out, its last lines.
   */
  onOutput(text: string, skippedBytes: number): void;
  /** Told what an edit changed, for people (the diff view, the transcript); the model never sees it. */
  recordEdit(edit: FileEdit): void;
  /** Told how the call ended. */
  recordDetails(details: ToolDetails): void;
}

/** The reports of a call nobody reads. */
export const noReports: ToolReport = Object.freeze({ onOutput() {}, recordEdit() {}, recordDetails() {} });

/** Without a checkpoint to take or a baseline to keep. */
export const noChangeWatch: ChangeWatch = Object.freeze({ beforeChange: async () => undefined, beforeWrite() {} });

/** How a command ended, as its result's first line tells the model. */
export interface CommandDetails {
  kind: "command";
  /** null when a signal ended it, or it timed out or was interrupted. */
  exitCode: number | null;
  /** The signal that ended it, when one did and hel did not send it. */
  signal: string | null;
  durationMs: number;
  timeoutS: number;
  timedOut: boolean;
  interrupted: boolean;
  /** Present when it was given more than the sandbox that `access` gives (still in the sandbox): why. */
  outside?: { by: OutsideBy; rules?: string[]; justification?: string };
}

/** An escalated command the user refused to run outside the sandbox: it was not run. */
export interface RefusalDetails {
  kind: "refusal";
  justification: string;
}

/** What one page of a search found, as its result's last line tallies it. */
export interface SearchDetails {
  kind: "search";
  /** grep: the matching lines on the page (with files_only, the matching files); find_files: the paths matching the glob. */
  matches: number;
  /** What `matches` counts. */
  unit: "line" | "file";
  /** The files those are in (grep) or the paths shown (find_files). */
  files: number;
  /** More than the page shows: grep's cursor goes on, or find_files listed only some. */
  more: boolean;
}

/** One file an isolated child changed, as its merge counts it. */
export interface MergedFile {
  path: string;
  added: number;
  removed: number;
  /** Lines are not counted in a binary file. */
  binary?: boolean;
}

/** A file git could not merge: its kind, and the conflicting hunks of the parent's side and the child's (a few, bounded). */
export interface MergeConflict {
  path: string;
  kind: "text" | "binary" | "mode" | "deleted";
  ours: string[];
  theirs: string[];
  /** Hunks or lines were left out past the bounds. */
  truncated: boolean;
}

/** How an isolated child's work came into the parent's tree (delegate_task with a worktree). */
export interface MergeDetails {
  kind: "merge";
  /** Its worktree's name under `.hel/worktrees/`, and its branch. */
  worktree: string;
  branch: string;
  status: "applied" | "no changes" | "conflict" | "not merged";
  files: MergedFile[];
  conflicts: MergeConflict[];
  /** The worktree and branch are still there (a conflict, or a child that did not finish). */
  kept: boolean;
}

export type ToolDetails = CommandDetails | SearchDetails | RefusalDetails | MergeDetails;

/** `Ctx`: what the caller gives besides the base context (the agent's loop gives the running agent). */
export interface Tool<Args = unknown, Ctx extends ToolContext = ToolContext> {
  name: string;
  description: string;
  schema: z.ZodType<Args>;
  /**
   * The JSON schema the request offers, when it is not derived from `schema`: an MCP server's tool,
   * which its server checks; `schema` then only asks for an object.
   */
  parameters?: Record<string, unknown>;
  /** read_file's own pages are already bounded, so its results are never spilled. */
  spill: boolean;
  /**
   * Calls of it that follow one another in one assistant message run at the same time (set from the
   * catalogue's traits when the tool list is assembled); results still join the conversation in call order.
   */
  concurrent?: boolean;
  run(args: Args, ctx: Ctx): Promise<string>;
}

/** A failure to report to the model as the tool's result: what failed and what call to make next. */
export class ToolError extends Error {
  override name = "ToolError";
}
