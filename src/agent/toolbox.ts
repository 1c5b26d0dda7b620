// The catalogue of tools: every tool hel can offer, declared once by name, with when it is offered
// and what it does that others must know of (the flags, the children's refusals, the files a fold
// records and the archive's hints, the tool list's filter, the sandbox warning). It names tools
// without loading them, so the command line can list and check them before any tool's code is
// needed; the tools themselves are made from it in children/assemble-tools.ts.
export interface ToolTraits {
  /**
   * "by default": offered when --tools is not given; "on request": only when --tools names it;
   * "with --delegate": offered with --delegate, never named by --tools.
   */
  offered: "by default" | "on request" | "with --delegate";
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
}

const DECLARED = {
  read_file: { offered: "by default", pathArgument: "path", hintedPath: true },
  search_replace: { offered: "by default", editsFiles: true, pathArgument: "path", hintedPath: true },
  run_command: { offered: "by default", runsCommands: true, pathArgument: "workdir" },
  grep: { offered: "by default", pathArgument: "path" },
  find_files: { offered: "by default" },
  fold: { offered: "on request", folds: true },
  recall: { offered: "on request" },
  ask: { offered: "on request", startsChild: "question" },
  delegate_task: { offered: "with --delegate", startsChild: "task", concurrent: true },
  review_changes: { offered: "with --delegate", startsChild: "task" },
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

/** A tool's traits; none for a tool the catalogue does not hold (a test's own, for one). */
export function traitsOf(name: string): ToolTraits | undefined {
  return Object.hasOwn(TOOLBOX, name) ? TOOLBOX[name as ToolName] : undefined;
}
