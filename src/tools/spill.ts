// Tool results too long for the conversation: the whole text goes to a file in the session's spill/
// directory and the conversation keeps its first lines, the file's project-relative path, its size, and
// the read_file call that reads on from the first line not shown. Spill files live and die with the
// session, so a resumed session can still read them. Errors are bounded by the same limit but never
// spilled: what makes one long is the model's own input echoed back (a path, a tool name), nothing to
// read on, so its middle is left out and its end, which says what call to make next, is kept.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { ensureHelDir } from "../fs/hel-dir.js";
import { ownDir } from "../fs/own-dir.js";
import { formatSize } from "../format.js";
import { pathScope, projectRelative } from "./paths.js";
import type { ToolContext } from "./types.js";

export const SPILL_LIMIT = 32 * 1024;
/** How much of a spilled result stays in the conversation. */
export const SPILL_HEAD_BYTES = 8 * 1024;

export async function spillIfLong(result: string, ctx: ToolContext): Promise<string> {
  const size = Buffer.byteLength(result);
  if (size <= SPILL_LIMIT) return result;

  const file = await newSpillFile(ctx);
  await writeFile(file, result, { flag: "wx" });

  const { text, fullLines } = headOf(result, SPILL_HEAD_BYTES);
  const spillPath = projectRelative(pathScope(ctx), file);
  const lines = result.split("\n").length;
  const shown = fullLines === 0 ? "the start of line 1 is shown above" : `lines 1-${fullLines} are shown above`;
  return `${text}\n[result too long for the conversation: ${formatSize(size)}, ${lines} lines; ${shown}. The whole result is in ${spillPath}; read on with ${readOnCall(spillPath, fullLines + 1)}]`;
}

/** The absolute path of a new, not yet existing file in the session's spill/ directory. */
export async function newSpillFile(ctx: ToolContext): Promise<string> {
  // A spill can come before the session's first save: .hel/.gitignore must exist from the first file
  // on, and the session must be leased, so no other process deletes or takes over what is being written.
  // The session's root, not the tools' project directory: an isolated child works in a worktree, while
  // its session, and so its spill/, is the parent's.
  await ensureHelDir(ctx.session.root);
  await ctx.session.claim();
  const dir = path.join(ctx.session.dir, "spill");
  await ownDir(ctx.session.root, dir, true);
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  return path.join(dir, `${stamp}-${randomBytes(3).toString("hex")}.txt`);
}

/** The read_file call that reads a spill file on from a line. */
export function readOnCall(spillPath: string, line: number): string {
  return `read_file ${JSON.stringify({ path: spillPath, offset: line })}`;
}

/** The longest run of whole lines within maxBytes; when even line 1 is longer, its beginning. */
export function headOf(result: string, maxBytes: number): { text: string; fullLines: number } {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of result.split("\n")) {
    const cost = Buffer.byteLength(line) + 1;
    if (bytes + cost > maxBytes) break;
    kept.push(line);
    bytes += cost;
  }
  if (kept.length > 0) return { text: kept.join("\n"), fullLines: kept.length };
  return { text: `${wholeChars(Buffer.from(result).subarray(0, maxBytes))} …`, fullLines: 0 };
}

/**
 * An error result within SPILL_LIMIT: a longer one keeps its first and last SPILL_HEAD_BYTES / 2 bytes.
 * Redact before cutting: a secret cut in two would no longer be recognised.
 */
export function cutLongError(error: string): string {
  const bytes = Buffer.from(error);
  if (bytes.length <= SPILL_LIMIT) return error;
  const keep = SPILL_HEAD_BYTES / 2;
  return `${wholeChars(bytes.subarray(0, keep))} … [${formatSize(bytes.length - 2 * keep)} of this error left out] … ${wholeChars(bytes.subarray(bytes.length - keep))}`;
}

/** UTF-8 bytes cut out of a text, without the characters the cuts split. */
function wholeChars(bytes: Buffer): string {
  return bytes.toString("utf8").replace(/^\uFFFD+|\uFFFD+$/g, "");
}
