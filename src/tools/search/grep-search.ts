// grep's search: the walk's files (see project-walk.ts), filtered by the glob, searched for matching lines
// (file-matches.ts), collected into one bounded page. A page ends where the next result would not fit,
// with a cursor that starts the next page at exactly that result; a search that runs out says how much
// it looked at, so "no matches" and "nothing searched" read differently.
import { closeSync, fstatSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { SCAN_BUFFER_BYTES, scanMatches, type LineMatch, type LineStart, type ScanEnd } from "./file-matches.js";
import { GLOB_FORMS, globMatcher } from "./glob.js";
import type { GrepArgs } from "./args.js";
import { decodeCursor, encodeCursor, type GrepCursor, type GrepQuery } from "./grep-cursor.js";
import { compileLinePattern, type LinePattern } from "./line-pattern.js";
import { resolveToolPath } from "../paths.js";
import { breather, openWalkedFile, ProjectWalk, resolveWalkRoot, type SearchScope, type WalkedFile, type WalkRoot } from "./project-walk.js";
import type { SharedProgress } from "./progress.js";
import { count } from "../../format.js";
import { GREP_PAGE_LINES, PAGE_BYTES, PATHS_PER_PAGE, tally } from "./format.js";
import { identityOf, sameIdentity } from "../text-file.js";
import { ToolError } from "../types.js";

export async function runGrep(args: GrepArgs, ctx: SearchScope, progress: SharedProgress): Promise<string> {
  const { cursor, ...given } = args;
  const resumed = cursor === undefined ? null : continuing(cursor, given);
  // Without a cursor the arguments' schema requires a pattern.
  const query: GrepQuery = resumed?.query ?? { ...given, pattern: given.pattern ?? "" };
  const pattern = compileLinePattern(query.pattern, query.ignore_case === true);
  const root = await resolveWalkRoot(ctx, query.path);
  const glob = query.glob === undefined ? null : globMatcher(query.glob, root.rel);
  if (resumed !== null) await checkStillApplies(ctx, resumed, root);

  const run = new GrepRun(query, pattern, ctx.secrets);
  const walk = new ProjectWalk(ctx, root);
  search: for await (const batch of walk.batches(resumed?.file)) {
    for (const file of batch) {
      progress.mark("glob", file.rel);
      if (glob !== null && !glob(file.rel)) {
        run.seen.outsideGlob++;
        continue;
      }
      progress.mark("pattern", file.rel);
      let outcome = run.searchFile(file, resumed !== null && file.rel === resumed.file ? { line: resumed.line, byte: resumed.byte } : FILE_START);
      while (outcome?.end === "paused") {
        await breather(ctx.signal);
        progress.mark("pattern", file.rel);
        outcome = run.searchFile(file, outcome.at);
      }
      if (outcome === null) walk.unreadable++;
      else if (outcome.end === "binary") run.seen.binary++;
      else run.seen.searched++;
      if (run.next !== null) break search;
    }
  }

  const unreadable = walk.unreadableNote();
  const { page, next } = run;
  ctx.recordDetails({ kind: "search", matches: page.matches, unit: query.files_only === true ? "file" : "line", files: page.files, more: next !== null });
  if (!page.isEmpty()) {
    const more = next === null ? undefined : `more follow: continue with grep ${JSON.stringify({ cursor: encodeCursor(next) })}`;
    const notes = [unreadable, more].filter((n) => n !== undefined);
    return `${page.text()}\n${tally(page.tally(next !== null), ...notes)}`;
  }
  return nothingFound(query, root, run.seen, unreadable, resumed !== null);
}

const FILE_START: LineStart = { line: 1, byte: 0 };

/** One search's state: the page being filled, what was looked at, and where the next page starts. */
class GrepRun {
  readonly page: Page;
  readonly seen = { searched: 0, binary: 0, outsideGlob: 0 };
  next: GrepCursor | null = null;
  private readonly buffer = Buffer.allocUnsafe(SCAN_BUFFER_BYTES);

  constructor(
    private readonly query: GrepQuery,
    private readonly pattern: LinePattern,
    private readonly secrets: readonly string[] | undefined,
  ) {
    this.page = new Page(query.files_only === true);
  }

  /**
   * Adds the file's matches from `from` on to the page; null when it cannot be read. When the page is
   * full, `next` says where the next one starts.
   */
  searchFile(file: WalkedFile, from: LineStart): ScanEnd | null {
    let fd: number;
    try {
      fd = openWalkedFile(file.abs);
    } catch {
      return null;
    }
    try {
      let full = false;
      const outcome = scanMatches(fd, { pattern: this.pattern, from, secrets: this.secrets, buffer: this.buffer }, (match) => {
        full = !this.page.add(file.rel, match);
        // Listing files, one matching line settles the file.
        return !full && this.query.files_only !== true;
      });
      if (full && outcome.end === "stopped") {
        const at = this.query.files_only === true ? FILE_START : outcome.at;
        this.next = { query: this.query, file: file.rel, ...at, ...identityOf(fstatSync(fd)) };
      }
      return outcome;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

/** The cursor's search; the other arguments, when given, must be that search's. */
function continuing(cursor: string, given: Omit<GrepArgs, "cursor">): GrepCursor {
  const state = decodeCursor(cursor);
  const differs = (Object.keys(given) as (keyof GrepQuery)[]).some((key) => given[key] !== undefined && given[key] !== state.query[key]);
  if (differs) {
    throw new ToolError(`this cursor continues the search grep ${JSON.stringify(state.query)}: send the cursor alone to continue it, or start a new search without cursor`);
  }
  return state;
}

async function checkStillApplies(ctx: SearchScope, cursor: GrepCursor, root: WalkRoot): Promise<void> {
  const inRoot = root.rel === "." || cursor.file === root.rel || cursor.file.startsWith(`${root.rel}/`);
  const abs = inRoot ? await resolveToolPath(ctx, cursor.file, "read") : null;
  const st = abs === null ? null : await lstat(abs).catch(() => null);
  if (st?.isFile() && sameIdentity(identityOf(st), cursor)) return;
  const what = st === null ? "was deleted or moved" : "changed";
  throw new ToolError(
    `this cursor no longer applies: ${cursor.file}, where it continues, ${what} since it was made, so its line numbers may have moved. Search again from the start: grep ${JSON.stringify(cursor.query)}`,
  );
}

function nothingFound(query: GrepQuery, root: WalkRoot, seen: { searched: number; binary: number; outsideGlob: number }, unreadable: string | undefined, resumed: boolean): string {
  const where = root.rel === "." ? "the project" : root.rel;
  const notes = [seen.binary > 0 ? `${count(seen.binary, "binary file")} skipped` : undefined, unreadable].filter((n) => n !== undefined);
  const also = notes.length > 0 ? `; ${notes.join("; ")}` : "";
  if (resumed) return `No more matches: the search is complete (${count(seen.searched, "more file")} searched${also}).`;
  if (query.glob !== undefined && seen.searched + seen.binary === 0) {
    return `No file in ${where} matches the glob ${JSON.stringify(query.glob)} (${count(seen.outsideGlob, "file")} looked at), so nothing was searched. ${GLOB_FORMS}`;
  }
  const flags = query.ignore_case === true ? "i" : "";
  const files = query.glob === undefined ? count(seen.searched, "file") : `${count(seen.searched, "file")} matching ${JSON.stringify(query.glob)}`;
  return `No matches for /${query.pattern}/${flags} in ${where} (${files} searched${also}).`;
}

/** One page of results: matching lines ("path:line: text"), or with files_only the matching paths. */
class Page {
  private readonly lines: string[] = [];
  private bytes = 0;
  /** The files the page's lines are in. */
  files = 0;
  private lastFile: string | null = null;

  constructor(private readonly filesOnly: boolean) {}

  /** Adds the match, or returns false when it does not fit on this page. */
  add(rel: string, match: LineMatch): boolean {
    const line = this.filesOnly ? rel : `${rel}:${match.line}: ${match.text}`;
    const cost = Buffer.byteLength(line) + 1;
    const full = this.lines.length >= (this.filesOnly ? PATHS_PER_PAGE : GREP_PAGE_LINES);
    if (full || (this.lines.length > 0 && this.bytes + cost > PAGE_BYTES)) return false;
    this.lines.push(line);
    this.bytes += cost;
    if (rel !== this.lastFile) {
      this.files++;
      this.lastFile = rel;
    }
    return true;
  }

  isEmpty(): boolean {
    return this.lines.length === 0;
  }

  /** The page's lines: matching lines, or with files_only matching paths. */
  get matches(): number {
    return this.lines.length;
  }

  text(): string {
    return this.lines.join("\n");
  }

  tally(partial: boolean): string {
    const shown = partial ? " shown" : "";
    return this.filesOnly ? `${count(this.files, "matching file")}${shown}` : `${count(this.lines.length, "match", "matches")} in ${count(this.files, "file")}${shown}`;
  }
}
