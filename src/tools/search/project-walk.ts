// The files grep and find_files look at: a depth-first walk of one directory of the project (or one
// file), in a fixed order (each directory's entries sorted by name), that leaves out what the project
// does not count as its own: what .gitignore files ignore, `.git`, `node_modules` (unless the walk
// starts inside one), hel's `.hel`, symlinks, and anything that is not a regular file or directory.
// The start is checked with the file tools' path rules; below it, symlinks are never followed (a
// directory is checked again just before it is listed, and files are opened with O_NOFOLLOW), so the
// walk can neither leave the project nor loop. An explicitly given start is walked even when it is
// ignored. The fixed order lets a search resume at a path: everything before it in the
// order is skipped without being read.
//
// Memory stays flat in the tree's size: only the entries of the directories on the current path are
// held. Directory listings and file reads are synchronous (the walk does many small ones, and each
// asynchronous call costs a trip through the thread pool), and files come in batches (a directory's
// run of files, at most a few hundred), so a search pays for one await per batch, not per file; the
// walk gives the event loop a turn at every directory and every batch, so Ctrl-C and timers still get
// through.
import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, type Dirent } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { IgnoreRules } from "./ignore-rules.js";
import { joinWalkPath, mayBeUndecodable, shownName, type WalkPath } from "./file-names.js";
import { isMissing, projectRelative, resolveToolPath } from "../paths.js";
import { count } from "../../format.js";
import { ToolError, type ToolDetails } from "../types.js";

/** What a search needs of the tool call: the project, the session's directory and the secrets go to a worker thread. */
export interface SearchScope {
  projectDir: string;
  sessionDir: string;
  secrets: readonly string[];
  signal: AbortSignal;
  recordDetails(details: ToolDetails): void;
}

export interface WalkedFile {
  abs: WalkPath;
  /** Project-relative, with `/`. */
  rel: string;
}

export interface WalkRoot {
  /** Real absolute path, as resolveToolPath gives it. */
  abs: string;
  /** Project-relative, "." for the project itself. */
  rel: string;
  isDirectory: boolean;
}

/** Where a search given `path` (default: the whole project) walks; throws ToolError when it cannot. */
export async function resolveWalkRoot(ctx: SearchScope, given = "."): Promise<WalkRoot> {
  const display = projectRelative(ctx, given);
  const abs = await resolveToolPath(ctx, given, "read");
  const st = await stat(abs).catch((e: unknown) => {
    if (!isMissing(e)) throw e;
    throw new ToolError(`${display} does not exist: search without path (the whole project), or see what is there with read_file ${JSON.stringify({ path: path.posix.dirname(display) })}`);
  });
  if (!st.isDirectory() && !st.isFile()) throw new ToolError(`${display} is not a regular file or directory (a device, socket or pipe) and cannot be searched`);
  return { abs, rel: projectRelative(ctx, abs), isDirectory: st.isDirectory() };
}

/** Skipped wherever they are met; `.git` and `node_modules` are walked when the walk starts inside one. */
const HEL_DIR = ".hel";
const VENDORED = new Set([".git", "node_modules"]);
const FILES_PER_BATCH = 256;
const NO_FOLLOW_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A directory entry: as Node listed it, or with its name shown (file-names.ts) and its bytes kept. */
type Entry = Pick<Dirent, "name" | "isDirectory" | "isFile"> & { raw?: Buffer };

interface Frame {
  abs: WalkPath;
  rel: string;
  entries: Entry[];
  next: number;
  /** Whether this directory's .gitignore was pushed on the rules. */
  pushed: boolean;
  /** The rest of the resume path below this directory, or null: walk all of it. */
  from: string[] | null;
}

export class ProjectWalk {
  /** Directories that could not be listed and files that could not be opened (permissions, races). */
  unreadable = 0;
  private readonly rules = new IgnoreRules();
  /** Whether the walk started inside `.git` or `node_modules`, which it then walks. */
  private inside = false;

  constructor(
    private readonly ctx: SearchScope,
    private readonly root: WalkRoot,
  ) {}

  /** What the result should say about what could not be read, if anything. */
  unreadableNote(): string | undefined {
    return this.unreadable === 0 ? undefined : `${count(this.unreadable, "file or directory", "files or directories")} could not be read`;
  }

  /** The walk's files in order, in batches; with `from` (project-relative), those from that path on. */
  async *batches(from?: string): AsyncGenerator<WalkedFile[]> {
    const rootRel = this.root.rel === "." ? "" : this.root.rel;
    if (!this.root.isDirectory) {
      if (from === undefined || from === rootRel) yield [{ abs: this.root.abs, rel: rootRel }];
      return;
    }
    this.inside = this.loadAncestors(rootRel);
    const fromSegments = from === undefined ? null : relativeSegments(rootRel, from);
    const stack: Frame[] = [];
    const first = await this.open(this.root.abs, rootRel, fromSegments !== null && fromSegments.length > 0 ? fromSegments : null);
    if (first) stack.push(first);
    let batch: WalkedFile[] = [];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const step = this.advance(frame, batch);
      if (step === "end") {
        stack.pop();
        if (frame.pushed) this.rules.pop();
      } else if (step === "full") {
        yield batch;
        batch = [];
        await breather(this.ctx.signal);
      } else {
        if (batch.length > 0) {
          yield batch;
          batch = [];
        }
        const child = await this.open(step.abs, step.rel, step.from);
        if (child) stack.push(child);
      }
    }
    if (batch.length > 0) yield batch;
  }

  /**
   * Moves through the frame's entries, adding its files to the batch, until the frame ends, the batch is
   * full, or a directory to enter comes. Kept apart from the generator: on a first search, V8 optimized
   * this loop sooner as a plain function than inside the async generator.
   */
  private advance(frame: Frame, batch: WalkedFile[]): "end" | "full" | { abs: WalkPath; rel: string; from: string[] | null } {
    for (;;) {
      const entry = frame.entries[frame.next++];
      if (entry === undefined) return "end";
      const name = entry.name;
      if (name === HEL_DIR || (!this.inside && VENDORED.has(name))) continue;
      const rel = frame.rel === "" ? name : `${frame.rel}/${name}`;
      const abs = joinWalkPath(frame.abs, entry.raw ?? name);
      const at = frame.from !== null && frame.from[0] === name ? frame.from.slice(1) : null;
      if (entry.isDirectory()) {
        if (!this.rules.ignores(rel, true)) return { abs, rel, from: at !== null && at.length > 0 ? at : null };
      } else if (entry.isFile()) {
        // A resume path that went through a directory of this name does not point at this file.
        if ((at !== null && at.length > 0) || this.rules.ignores(rel, false)) continue;
        batch.push({ abs, rel });
        if (batch.length >= FILES_PER_BATCH) return "full";
      }
    }
  }

  /**
   * The rules of the .gitignore files above the walk's root, from the project's own down, and whether
   * the walk starts inside `.git` or `node_modules`. Where the model pointed into an ignored directory,
   * the rules that ignored it are dropped, so it is searched. The root's own .gitignore comes with it.
   */
  private loadAncestors(rootRel: string): boolean {
    let inside = false;
    let rel = "";
    for (const segment of rootRel === "" ? [] : rootRel.split("/")) {
      this.pushGitignore(path.join(this.ctx.projectDir, rel), rel);
      rel = rel === "" ? segment : `${rel}/${segment}`;
      if (VENDORED.has(segment)) inside = true;
      if (this.rules.ignores(rel, true)) this.rules.clear();
    }
    return inside;
  }

  private async open(abs: WalkPath, rel: string, from: string[] | null): Promise<Frame | null> {
    await breather(this.ctx.signal);
    let entries: Entry[];
    try {
      // Still the directory the walk met, not a symlink swapped in since its parent was listed.
      if (!lstatSync(abs).isDirectory()) return null;
      entries = readdirSync(abs, { withFileTypes: true });
      if (entries.some((e) => mayBeUndecodable(e.name))) entries = listBytes(abs);
    } catch {
      this.unreadable++;
      return null;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (from !== null) entries = entries.filter((e) => e.name >= from[0]!);
    const pushed = entries.some((e) => e.name === ".gitignore" && e.isFile()) && this.pushGitignore(abs, rel);
    return { abs, rel, entries, next: 0, pushed, from };
  }

  private pushGitignore(dirAbs: WalkPath, dirRel: string): boolean {
    let text: string;
    try {
      const fd = openWalkedFile(joinWalkPath(dirAbs, ".gitignore"));
      try {
        text = readFileSync(fd, "utf8");
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
    this.rules.push(dirRel, text);
    return true;
  }
}

/** A turn of the event loop for whatever waits (Ctrl-C's handler among them); throws once cancelled. */
export async function breather(signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

/** Opens a walked file for reading without following a symlink put in its place since the listing. */
export function openWalkedFile(abs: WalkPath): number {
  return openSync(abs, NO_FOLLOW_READ);
}

/** The directory's entries with their names as bytes: shown as file-names.ts says, opened by their bytes. */
function listBytes(abs: WalkPath): Entry[] {
  return readdirSync(abs, { withFileTypes: true, encoding: "buffer" }).map((e) => {
    const raw = e.name;
    return { name: shownName(raw), raw, isDirectory: () => e.isDirectory(), isFile: () => e.isFile() };
  });
}

/** `target`'s path segments below `rootRel`, both project-relative ("" for the project). */
function relativeSegments(rootRel: string, target: string): string[] {
  const below = rootRel === "" ? target : target.slice(rootRel.length + 1);
  return below === "" ? [] : below.split("/");
}
