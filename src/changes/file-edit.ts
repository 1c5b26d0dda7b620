// What one file edit changed, for people: unified-diff hunks numbered like the file, with a few lines
// of context, and the count of lines added and removed (edit-diff.ts makes one). Never part of the
// model's tool result. One schema, for the event stream, --json-events and the snapshot that keeps it.
import { z } from "../zod.js";

const count = z.number().int().nonnegative();

/** Line numbers are the file's, from 1; an empty range's start is the line where it would begin. */
const DiffHunkSchema = z.object({
  old_start: count,
  old_lines: count,
  new_start: count,
  new_lines: count,
  /** Each line with its mark: " " context, "-" removed, "+" added; no line break. */
  lines: z.array(z.string()),
});
export type DiffHunk = z.infer<typeof DiffHunkSchema>;

export const FileEditSchema = z.object({
  /** The path as the model named it, relative to the project directory. */
  path: z.string(),
  /** True when the edit made the file. */
  created: z.boolean(),
  added: count,
  removed: count,
  hunks: z.array(DiffHunkSchema),
});
export type FileEdit = z.infer<typeof FileEditSchema>;

/** The same edit with every line passed through `clean` (to redact secrets before it is shown or saved). */
export function mapEditLines(edit: FileEdit, clean: (line: string) => string): FileEdit {
  return { ...edit, hunks: edit.hunks.map((h) => ({ ...h, lines: h.lines.map(clean) })) };
}
