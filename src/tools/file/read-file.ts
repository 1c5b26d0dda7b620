// read_file: a page of a text file's numbered lines, or a directory's entries. A page holds at most
// MAX_PAGE_LINES lines or MAX_PAGE_BYTES bytes and always ends at a line boundary; when more remains it
// ends with a cursor that continues byte-exact where it stopped. Reading streams from a byte offset in
// bounded memory, so the first page of a huge file costs what a small file costs. Results are never
// spilled: a page is already bounded. A page that is not valid UTF-8 is shown as Windows-1252 and says so.
import type { FileHandle } from "node:fs/promises";
import { lstat, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { PathChangedError, type OpenDir } from "../../fs/beneath.js";
import { z } from "../../zod.js";
import type { CursorState } from "../cursors.js";
import { formatSize, plural } from "../../format.js";
import { MAX_LINE_CHARS, scanLines, seekLine, type Line, type LineEncoding } from "./lines.js";
import { isMissing, pathScope, projectRelative, withProjectEntry } from "../paths.js";
import { redactSecrets, redactSecretTail } from "../../redact.js";
import { BINARY_SNIFF_BYTES, identityOf, looksBinary, openForReading, sameIdentity, type FileIdentity } from "../text-file.js";
import { ToolError, type Tool, type ToolContext } from "../types.js";
import { WINDOWS_1252 } from "../windows-1252.js";

export const MAX_PAGE_LINES = 2000;
export const MAX_PAGE_BYTES = 50 * 1024;
export const MAX_DIR_ENTRIES = 1000;

const ReadFileArgsSchema = z
  .strictObject({
    // Every request carries the definition: the description says what the fields are.
    path: z.string().optional(),
    offset: z.int().min(1).optional(),
    limit: z.int().min(1).optional(),
    cursor: z.string().optional(),
  })
  .superRefine((args, issues) => {
    if (args.path === undefined && args.cursor === undefined) {
      issues.addIssue({ code: "custom", message: "give path (the file or directory to read) or cursor (to continue a previous read)" });
    }
    if (args.cursor !== undefined && args.offset !== undefined) {
      issues.addIssue({
        code: "custom",
        path: ["offset"],
        message: "offset cannot be combined with cursor: a cursor continues where its page stopped; to start at a line, send path and offset without cursor",
      });
    }
  });
export type ReadFileArgs = z.infer<typeof ReadFileArgsSchema>;

export const readFileTool: Tool<ReadFileArgs> = {
  name: "read_file",
  // A page that stops early says how much it shows and how to go on, so paging needs no words here.
  description: "Read a file as numbered lines, or list a folder.",
  schema: ReadFileArgsSchema,
  spill: false,
  run: (args, ctx) => (args.cursor === undefined ? readPath(args, ctx) : continueRead(args.cursor, args, ctx)),
};

interface PageStart {
  display: string;
  identity: FileIdentity;
  byte: number;
  line: number;
  /** Lines left of the range asked for; null for the rest of the file. */
  linesLeft: number | null;
}

async function readPath(args: ReadFileArgs, ctx: ToolContext): Promise<string> {
  const given = args.path ?? ".";
  const scope = pathScope(ctx);
  const display = projectRelative(scope, given);
  const page = withProjectEntry(scope, given, "read", false, async ({ dir, name, real }) => {
    const st = await lstat(dir.entry(name));
    if (st.isDirectory()) {
      const listed = await dir.child(name);
      try {
        return await listDirectory(listed, display, real === ctx.projectDir);
      } finally {
        await listed.close();
      }
    }
    if (!st.isFile() && !st.isSymbolicLink()) throw new ToolError(`${display} is not a regular file (a device, socket or pipe) and cannot be read`);
    // A symlink here is not what the path rules saw: opening it without following fails as a change.
    return withFile(dir, name, async (fh, identity) => {
      if (identity.size === 0) return `${display} is empty (0 lines).`;
      const head = Buffer.alloc(Math.min(BINARY_SNIFF_BYTES, identity.size));
      await fh.read(head, 0, head.length, 0);
      if (looksBinary(head)) throw new ToolError(`binary file: ${display} contains NUL bytes and cannot be read as text`);
      const offset = args.offset ?? 1;
      const seek = await seekLine(fh, offset, identity.size, ctx.signal);
      if (!seek.found) {
        throw new ToolError(`offset ${offset} is past the end: ${display} has ${plural(seek.lines, "line")}. Read it with an offset from 1 to ${seek.lines}`);
      }
      return readPage(ctx, fh, { display, identity, byte: seek.byte, line: offset, linesLeft: args.limit ?? null });
    });
  });
  return page.catch((e: unknown) => {
    if (!isMissing(e)) throw e;
    throw new ToolError(`${display} does not exist. See what is there with read_file ${JSON.stringify({ path: path.posix.dirname(display) })}`);
  });
}

async function continueRead(id: string, args: ReadFileArgs, ctx: ToolContext): Promise<string> {
  const state = ctx.session.cursors.get(id);
  if (state === undefined) {
    throw new ToolError(`unknown cursor ${JSON.stringify(id)}: no read in this session made it. Read the file again with path (and offset)`);
  }
  const scope = pathScope(ctx);
  const given = args.path === undefined ? undefined : projectRelative(scope, args.path);
  if (given !== undefined && given !== state.path) {
    throw new ToolError(`cursor ${id} continues ${state.path}, not ${given}: send the cursor alone, or read ${given} with path`);
  }
  const changed = new ToolError(`the file changed since this cursor was made — read it again with path and offset: read_file ${JSON.stringify({ path: state.path, offset: state.nextLine })}`);
  const page = withProjectEntry(scope, state.path, "read", false, ({ dir, name }) =>
    withFile(dir, name, async (fh, identity) => {
      if (!sameIdentity(identity, state)) throw changed;
      const linesLeft = args.limit ?? state.linesLeft;
      return readPage(ctx, fh, { display: state.path, identity, byte: state.nextByte, line: state.nextLine, linesLeft });
    }),
  );
  return page.catch((e: unknown) => {
    throw isMissing(e) ? changed : e;
  });
}

/** Runs `use` on `name`, a regular file when it was looked at: anything else by now was put in its place. */
async function withFile<T>(dir: OpenDir, name: string, use: (fh: FileHandle, identity: FileIdentity) => Promise<T>): Promise<T> {
  const fh = await openForReading(dir, name);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new PathChangedError(`${name} was replaced while it was in use`);
    return await use(fh, identityOf(st));
  } finally {
    await fh.close();
  }
}

/** A page in UTF-8; a page that is not valid UTF-8 is read again as Windows-1252, and says so. */
async function readPage(ctx: ToolContext, fh: FileHandle, start: PageStart): Promise<string> {
  try {
    return await readPageIn("utf-8", ctx, fh, start);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ERR_ENCODING_INVALID_ENCODED_DATA") throw e;
  }
  return readPageIn("windows-1252", ctx, fh, start);
}

async function readPageIn(encoding: LineEncoding, ctx: ToolContext, fh: FileHandle, start: PageStart): Promise<string> {
  const want = Math.min(MAX_PAGE_LINES, start.linesLeft ?? MAX_PAGE_LINES);
  const out: string[] = [];
  let bytes = 0;
  let next = { byte: start.byte, line: start.line };
  for await (const line of scanLines(fh, start.byte, start.identity.size, ctx.signal, encoding)) {
    const numbered = formatLine(next.line, line, next.byte === 0, ctx.policy.secrets);
    const cost = Buffer.byteLength(numbered) + 1;
    if (out.length > 0 && bytes + cost > MAX_PAGE_BYTES) break;
    out.push(numbered);
    bytes += cost;
    next = { byte: line.end, line: next.line + 1 };
    if (out.length === want) break;
  }
  if (encoding === "windows-1252") {
    out.push(`[${start.display} is not UTF-8 text: shown decoded as ${WINDOWS_1252} (Latin-1); search_replace keeps that encoding]`);
  }
  const left = start.identity.size - next.byte;
  if (left <= 0) return out.join("\n");

  const rangeLeft = start.linesLeft === null ? null : start.linesLeft - out.length;
  const state: CursorState = {
    path: start.display,
    nextByte: next.byte,
    nextLine: next.line,
    linesLeft: rangeLeft === 0 ? null : rangeLeft,
    ...start.identity,
  };
  const cursor = ctx.session.cursors.create(state);
  const shown = out.length === 1 ? `line ${start.line}` : `lines ${start.line}-${next.line - 1}`;
  const remains =
    rangeLeft === null
      ? `about ${formatSize(left)} of the file remain`
      : rangeLeft > 0
        ? `the requested range has ${plural(rangeLeft, "more line")} (about ${formatSize(left)} left in the file)`
        : `that was the requested range; the file goes on from line ${next.line} (about ${formatSize(left)} left)`;
  return `${out.join("\n")}\n[${shown} of ${start.display} shown; ${remains}. cursor: ${cursor} — continue with read_file {"cursor": "${cursor}"}]`;
}

function formatLine(number: number, line: Line, atFileStart: boolean, secrets: readonly string[] | undefined): string {
  // A BOM is encoding, not text: edits keep it without the model ever writing it.
  const bom = atFileStart && line.text.startsWith("\uFEFF");
  const chars = bom ? line.chars - 1 : line.chars;
  let text = redactSecrets(bom ? line.text.slice(1) : line.text, secrets);
  if (chars > MAX_LINE_CHARS) text = redactSecretTail(Array.from(text).slice(0, MAX_LINE_CHARS).join(""), secrets);
  const cut = chars > MAX_LINE_CHARS ? ` … [line cut: ${chars} chars]` : "";
  return `${String(number).padStart(6)}\t${text}${cut}`;
}

async function listDirectory(dir: OpenDir, display: string, atRoot: boolean): Promise<string> {
  const entries = (await readdir(dir.entry("."), { withFileTypes: true })).filter((e) => !(atRoot && e.name === ".hel")).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (entries.length === 0) return `${display} is an empty directory.`;
  const lines = [`${display === "." ? "the project directory" : `${display}/`}: ${plural(entries.length, "entry", "entries")}`];
  let bytes = Buffer.byteLength(lines[0] ?? "");
  for (const entry of entries) {
    const isDir =
      entry.isDirectory() ||
      (entry.isSymbolicLink() &&
        (await stat(dir.entry(entry.name)).then(
          (s) => s.isDirectory(),
          () => false,
        )));
    const name = isDir ? `${entry.name}/` : entry.name;
    bytes += Buffer.byteLength(name) + 1;
    if (lines.length > MAX_DIR_ENTRIES || bytes > MAX_PAGE_BYTES) break;
    lines.push(name);
  }
  const shown = lines.length - 1;
  if (shown < entries.length) {
    lines.push(`[${shown} of ${entries.length} entries shown; the listing stops here. Read the files you need by path.]`);
  }
  return lines.join("\n");
}
