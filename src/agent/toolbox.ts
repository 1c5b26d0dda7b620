// The catalogue of tools: every tool hel can offer, declared once by name, with when it is offered
// and what it does that others must know of (the flags, the children's refusals, the files a fold
// records and the archive's hints, the tool list's filter, the sandbox warning). It names tools
// without loading them, so the command line can list and check them before any tool's code is
// needed; the tools themselves are made from it in children/assemble-tools.ts. The tools of MCP
// servers are one family of it: whatever a server lists, under the prefix ../mcp/ gives their names.
import { SERVER_TOOL_PREFIX } from "../mcp/offered.js";

export interface ToolTraits {
  /**
   * "by default": offered when --tools is not given; "on request": only when --tools names it;
   * "with --delegate": offered with --delegate, never named by --tools; "by a server": an MCP
   * server's, offered after all of hel's own while its server runs.
   */
  offered: "by default" | "on request" | "with --delegate" | "by a server";
  /** It does nothing but change files: not offered under read-only access, refused to a reviewer. */
  editsFiles?: true;
  /** It runs commands, in a sandbox unless access is full. */
  runsCommands?: true;
  /** Its calls that follow one another in one assistant message run at the same time. */
  concurrent?: true;
  /**
   * It starts a child: for a task of its own ("task", refused to every child, since no child starts
   * another), or to answer a question about the archive ("question", refused to such an answerer).
   */
  startsChild?: "task" | "question";
  /** It moves a span of the conversation into the archive: only the conversation that owns one may. */
  folds?: true;
  /** The argument naming the file (or folder) a call works on: a fold records it as touched. */
  pathArgument?: string;
  /** A call's result ends with a hint at the archived spans that touched its file (`pathArgument`). */
  hintedPath?: true;
  /** It only reads (the project, or the conversation's archive): a call of it changes no file. */
  readsOnly?: true;
}

const DECLARED = {
  read_file: { offered: "by default", pathArgument: "path", hintedPath: true, readsOnly: true },
  search_replace: { offered: "by default", editsFiles: true, pathArgument: "path", hintedPath: true },
  run_command: { offered: "by default", runsCommands: true, pathArgument: "workdir" },
  grep: { offered: "by default", pathArgument: "path", readsOnly: true },
  find_files: { offered: "by default", readsOnly: true },
  fold: { offered: "by default", folds: true, readsOnly: true },
  recall: { offered: "by default", readsOnly: true },
  ask: { offered: "by default", startsChild: "question", readsOnly: true },
  // It changes no file: it only shows the user the model's steps.
  todo: { offered: "by default", readsOnly: true },
  delegate_task: { offered: "with --delegate", startsChild: "task", concurrent: true },
  review_changes: { offered: "with --delegate", startsChild: "task", readsOnly: true },
} as const satisfies Record<string, ToolTraits>;

export type ToolName = keyof typeof DECLARED;
export const TOOLBOX: Readonly<Record<ToolName, ToolTraits>> = DECLARED;

const NAMES = Object.keys(TOOLBOX) as ToolName[];

/** The names --tools takes, in the catalogue's order. */
export const SELECTABLE_TOOLS = NAMES.filter((name) => TOOLBOX[name].offered !== "with --delegate") as [ToolName, ...ToolName[]];
/** What --tools offers when not given. */
export const DEFAULT_TOOLS = NAMES.filter((name) => TOOLBOX[name].offered === "by default");
/** What --delegate adds to the list, after the tools --tools chose. */
export const DELEGATE_TOOLS = NAMES.filter((name) => TOOLBOX[name].offered === "with --delegate");

// A server's tool may do anything its server does: it claims no trait that would let a child or a
// fold treat it as harmless.
const SERVER_TOOL: ToolTraits = { offered: "by a server" };

/** A tool's traits; none for a tool the catalogue does not hold (a test's own, for one). */
export function traitsOf(name: string): ToolTraits | undefined {
  if (Object.hasOwn(TOOLBOX, name)) return TOOLBOX[name as ToolName];
  return name.startsWith(SERVER_TOOL_PREFIX) ? SERVER_TOOL : undefined;
}
