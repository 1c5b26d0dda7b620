// grep's cursor: an opaque string that carries the whole search (pattern, path, glob, flags) and where the
// next page starts (the file holding the first result not shown, its line and that line's byte
// offset), so the model sends it
// alone and a resumed session can still use it. Files are searched in a fixed order (see
// project-walk.ts), so files before that one are skipped without being read, and files added or removed
// elsewhere since do not shift the position. The starting file's identity (inode, size, modification
// time) is in the cursor too: if that file changed, its lines may have moved, and the cursor is refused
// with a message that says so.
import { z } from "../../zod.js";
import { GrepQuerySchema } from "./args.js";
import { ToolError } from "../types.js";

const PREFIX = "grep1.";

const CursorSchema = z.strictObject({
  query: GrepQuerySchema.required({ pattern: true }),
  /** Project-relative path of the file to start in. */
  file: z.string().min(1),
  line: z.int().positive(),
  byte: z.int().nonnegative(),
  ino: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
});
export type GrepCursor = z.infer<typeof CursorSchema>;
export type GrepQuery = GrepCursor["query"];

export function encodeCursor(cursor: GrepCursor): string {
  return PREFIX + Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

export function decodeCursor(text: string): GrepCursor {
  const invalid = new ToolError(`${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)} is not a cursor grep gave: send the cursor exactly as the last grep result wrote it, or search again with pattern`);
  if (!text.startsWith(PREFIX)) throw invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text.slice(PREFIX.length), "base64url").toString("utf8"));
  } catch {
    throw invalid;
  }
  const result = CursorSchema.safeParse(parsed);
  if (!result.success) throw invalid;
  return result.data;
}
