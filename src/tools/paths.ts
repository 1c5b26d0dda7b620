// Where a tool may touch the disk. Every path resolves inside the project directory, judged by its real
// location (symlinks followed; for a file yet to be created, the real location of its nearest existing
// ancestor), so neither `..`, an absolute path, nor a symlink can lead out. hel's own `.hel/` is off
// limits, except that the current session's `spill/` can be read: spilled tool results point there, also
// from an isolated child's worktree, whose session (and spill/) is the parent's, outside the worktree.
// The skill folders the system prompt lists can be read too (`.hel/skills/`, and the user's, outside the
// project), through the path they are listed under and only as far as their real folder reaches.
// The checked real path is then walked from the project directory without following any link
// (withProjectEntry), so a directory swapped for a symlink after the check makes the call fail instead
// of leading out.
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { getSystemErrorMap } from "node:util";
import { openBeneath, PathChangedError, type OpenDir } from "../fs/beneath.js";
import { ToolError, type SkillFolder, type ToolContext } from "./types.js";

export type PathIntent = "read" | "write";

/** What the path rules need of a tool call; without a session directory nothing in `.hel/` is readable. */
export interface PathScope {
  readonly projectDir: string;
  readonly skillDirs?: readonly SkillFolder[];
  readonly sessionDir?: string;
  /** A tool's context is no scope (it would pass for one without its skill folders and session): pathScope makes one of it. */
  readonly session?: never;
}

/** A call's path scope: its project, the skill folders its policy lists, its session's directory (asked for only when a path leads into `.hel/`). */
export function pathScope(ctx: ToolContext): PathScope {
  return {
    projectDir: ctx.projectDir,
    skillDirs: ctx.policy.skillDirs,
    get sessionDir() {
      return ctx.session.dir;
    },
  };
}

/** A path the rules refuse, or one that changed while in use: `problem` says why in words fit for a person too. */
class PathError extends ToolError {
  constructor(
    readonly problem: string,
    advice: string,
  ) {
    super(`${problem}${advice}`);
  }
}

/** The path as the model should write it: relative to the project directory, with `/`; outside it (a user's skill), absolute. */
export function projectRelative(ctx: PathScope, p: string): string {
  const abs = path.resolve(ctx.projectDir, p);
  if (!isInside(ctx.projectDir, abs)) return abs;
  const rel = path.relative(ctx.projectDir, abs);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

/** The absolute real path a tool may use for `p`; throws ToolError when `p` is off limits. */
export async function resolveToolPath(ctx: PathScope, p: string, intent: PathIntent): Promise<string> {
  return (await locate(ctx, p, intent)).real;
}

/** The real path a tool may use for `p`, and the folder a walk to it starts from (the project, or a skill folder outside it). */
async function locate(ctx: PathScope, p: string, intent: PathIntent): Promise<{ real: string; root: string }> {
  if (p.trim() === "") throw new ToolError('the path is empty: give a path relative to the project directory, e.g. "src/index.ts" ("." lists the project root)');
  if (p.includes("\0")) throw new ToolError(`the path ${JSON.stringify(p)} contains a NUL character: give a plain path relative to the project directory`);
  const lexical = path.resolve(ctx.projectDir, p);
  const skill = intent === "read" ? ctx.skillDirs?.find((s) => isInside(s.dir, lexical)) : undefined;
  if (skill !== undefined) {
    const real = await realLocation(lexical, p);
    if (isInside(skill.real, real)) return { real, root: isInside(ctx.projectDir, real) ? ctx.projectDir : skill.real };
    if (!isInside(ctx.projectDir, lexical)) {
      throw new PathError(`${JSON.stringify(p)} leads out of the skill folder ${skill.dir} through a symlink (to ${real})`, `: only the files inside a listed skill folder can be read. ${PATH_RULE}`);
    }
  }
  if (!isInside(ctx.projectDir, lexical)) {
    const spilled = intent === "read" ? await outsideSpill(ctx, lexical, p) : null;
    if (spilled !== null) return spilled;
    // A model that takes the project root for `/` writes "/src/x.ts"; tell it the form it meant.
    const meant = path.isAbsolute(p) ? ` If you meant the project's own ${JSON.stringify(p)}, write ${JSON.stringify(projectRelative(ctx, `.${p}`))}.` : "";
    throw new PathError(`${JSON.stringify(p)} is outside the project directory (${ctx.projectDir})`, `. ${PATH_RULE}${meant}`);
  }
  const real = await realLocation(lexical, p);
  if (!isInside(ctx.projectDir, real)) {
    throw new PathError(`${JSON.stringify(p)} leads outside the project directory through a symlink (to ${real})`, `. ${PATH_RULE}`);
  }
  // Judged by both forms: a `.hel` that is itself a symlink (to a directory inside the project) must
  // not open another way in, so its real location is off limits too.
  const helDir = path.join(ctx.projectDir, ".hel");
  const realHel = await realOrSelf(helDir);
  if (isInside(helDir, lexical) || isInside(helDir, real) || isInside(realHel, real)) {
    const spillDir = ctx.sessionDir === undefined ? null : await realOrSelf(path.join(ctx.sessionDir, "spill"));
    if (intent === "read" && spillDir !== null && isInside(spillDir, real)) return { real, root: ctx.projectDir };
    const what = intent === "read" ? "hel's own state" : "hel's own state, and spilled results are read-only";
    throw new PathError(`${JSON.stringify(p)} is in .hel/, ${what}: it is off limits to tools`, `. ${PATH_RULE}`);
  }
  return { real, root: ctx.projectDir };
}

/**
 * A spill file of the session when the session's directory is outside the project directory (an
 * isolated child works in a worktree; its session is the parent's): readable as far as the real spill/
 * reaches, walked from there. Null: `lexical` is not in the session's spill/.
 */
async function outsideSpill(ctx: PathScope, lexical: string, p: string): Promise<{ real: string; root: string } | null> {
  if (ctx.sessionDir === undefined) return null;
  const spillDir = path.join(ctx.sessionDir, "spill");
  if (!isInside(spillDir, lexical)) return null;
  const [real, realSpill] = await Promise.all([realLocation(lexical, p), realOrSelf(spillDir)]);
  if (!isInside(realSpill, real)) throw new PathError(`${JSON.stringify(p)} leads out of the session's spill folder through a symlink (to ${real})`, `. ${PATH_RULE}`);
  return { real, root: realSpill };
}

const PATH_RULE = 'Paths must be inside the project directory and are written relative to it, e.g. "src/index.ts" ("." is the project root).';

/** Where `p` leads, reached without following links: the opened directory holding it, and its name there. */
export interface ProjectEntry {
  dir: OpenDir;
  /** The name in `dir`; "." for the project directory itself. */
  name: string;
  /** The checked real path. */
  real: string;
}

/**
 * Runs `use` on the entry `p` leads to, once the rules allow it (resolveToolPath) and its directory is
 * open. With `create`, missing directories on the way are made. A directory replaced on the way, or an
 * entry found to be a symlink, becomes a PathError; other file system errors name the path as given,
 * since the path they were raised on means nothing to the model.
 */
export async function withProjectEntry<T>(ctx: PathScope, p: string, intent: PathIntent, create: boolean, use: (entry: ProjectEntry) => Promise<T>): Promise<T> {
  const { real, root } = await locate(ctx, p, intent);
  const names = path
    .relative(root, real)
    .split(path.sep)
    .filter((n) => n !== "");
  try {
    const dir = await openBeneath(root, names.slice(0, -1), create);
    try {
      return await use({ dir, name: names.at(-1) ?? ".", real });
    } finally {
      await dir.close();
    }
  } catch (e) {
    throw inTermsOf(projectRelative(ctx, p), e);
  }
}

function inTermsOf(display: string, e: unknown): unknown {
  if (e instanceof PathChangedError) {
    return new PathError(`${display} changed while it was in use: it or a directory on its path was replaced`, ", perhaps by a symlink. Nothing was read or written there; make the call again");
  }
  const errno = e as NodeJS.ErrnoException;
  if (e instanceof ToolError || typeof errno.errno !== "number" || errno.code === undefined) return e;
  const what = getSystemErrorMap().get(errno.errno)?.[1] ?? "failed";
  return Object.assign(new Error(`${errno.code}: ${what} (${display})`), { code: errno.code });
}

export function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/**
 * Real path of `abs`, or of its nearest existing ancestor joined with the rest. A dangling symlink on the
 * way is refused: writing through it would create its target, wherever that is.
 */
async function realLocation(abs: string, given: string): Promise<string> {
  let existing = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(existing), ...rest);
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    if (
      await lstat(existing).then(
        () => true,
        () => false,
      )
    ) {
      throw new PathError(`${JSON.stringify(given)} goes through a symlink whose target does not exist (${existing})`, "; use a path to a real file inside the project directory");
    }
    const parent = path.dirname(existing);
    if (parent === existing) return abs;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
}

async function realOrSelf(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}

export function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
