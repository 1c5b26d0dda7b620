// find_files' listing: the walk's files (see project-walk.ts) whose path matches the glob, newest
// (latest modification) first, ties by path. Only the newest PATHS_PER_PAGE are kept while walking,
// so memory does not grow with the number of matches; the rest are counted.
import { lstatSync } from "node:fs";
import type { FindFilesArgs } from "./args.js";
import { GLOB_FORMS, globMatcher } from "./glob.js";
import { ProjectWalk, resolveWalkRoot, type SearchScope } from "./project-walk.js";
import type { SharedProgress } from "./progress.js";
import { count } from "../../format.js";
import { PAGE_BYTES, PATHS_PER_PAGE, tally } from "./format.js";

interface Found {
  rel: string;
  mtimeMs: number;
}

export async function runFindFiles(args: FindFilesArgs, ctx: SearchScope, progress: SharedProgress): Promise<string> {
  const root = await resolveWalkRoot(ctx, args.path);
  const matches = globMatcher(args.pattern, root.rel);
  const walk = new ProjectWalk(ctx, root);
  let kept: Found[] = [];
  let total = 0;
  let looked = 0;
  for await (const batch of walk.batches()) {
    for (const file of batch) {
      looked++;
      progress.mark("glob", file.rel);
      if (!matches(file.rel)) continue;
      let mtimeMs: number;
      try {
        mtimeMs = lstatSync(file.abs).mtimeMs;
      } catch {
        walk.unreadable++;
        continue;
      }
      total++;
      kept.push({ rel: file.rel, mtimeMs });
      if (kept.length >= 2 * PATHS_PER_PAGE) kept = newestFirst(kept).slice(0, PATHS_PER_PAGE);
    }
  }

  const unreadable = walk.unreadableNote();
  const where = root.rel === "." ? "the project" : root.rel;
  if (total === 0) {
    ctx.recordDetails({ kind: "search", matches: 0, unit: "file", files: 0, more: false });
    const also = unreadable === undefined ? "" : `; ${unreadable}`;
    return `No file in ${where} matches the glob ${JSON.stringify(args.pattern)} (${count(looked, "file")} looked at${also}). ${GLOB_FORMS}`;
  }
  const lines: string[] = [];
  let bytes = 0;
  for (const found of newestFirst(kept).slice(0, PATHS_PER_PAGE)) {
    bytes += Buffer.byteLength(found.rel) + 1;
    if (bytes > PAGE_BYTES) break;
    lines.push(found.rel);
  }
  ctx.recordDetails({ kind: "search", matches: total, unit: "file", files: lines.length, more: lines.length < total });
  const shown = lines.length === total ? `${count(total, "file")}, newest first` : `${lines.length} of ${count(total, "file")} shown, newest first`;
  const rest = lines.length === total ? undefined : "narrow the pattern or path to see the others";
  return `${lines.join("\n")}\n${tally(shown, ...[unreadable, rest].filter((n) => n !== undefined))}`;
}

function newestFirst(found: Found[]): Found[] {
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}
