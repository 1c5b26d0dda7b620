// read_file cursors: opaque ids handed to the model, mapped to the state needed to continue a read
// byte-exact. The state lives in the process and is saved with the session, so a resumed session
// can continue a read it started; a cursor whose file changed since is refused.
import { randomBytes } from "node:crypto";
import { z } from "../zod.js";

const CursorStateSchema = z.object({
  /** Path relative to the project directory, as the model gave it (normalised). */
  path: z.string(),
  /** Byte offset where the next page starts. */
  nextByte: z.number().int().nonnegative(),
  /** 1-based number of the line that starts at nextByte. */
  nextLine: z.number().int().positive(),
  /** Lines left of the range the model asked for; null when it asked for the rest of the file. */
  linesLeft: z.number().int().nonnegative().nullable(),
  /** The file's identity when the cursor was made. */
  ino: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
});
export type CursorState = z.infer<typeof CursorStateSchema>;

export const CursorMapSchema = z.record(z.string(), CursorStateSchema);
export type CursorMap = z.infer<typeof CursorMapSchema>;

export class CursorStore {
  private readonly cursors = new Map<string, CursorState>();

  constructor(initial: CursorMap = {}) {
    for (const [id, state] of Object.entries(initial)) this.cursors.set(id, state);
  }

  create(state: CursorState): string {
    const id = `c_${randomBytes(6).toString("hex")}`;
    this.cursors.set(id, state);
    return id;
  }

  get(id: string): CursorState | undefined {
    return this.cursors.get(id);
  }

  delete(id: string): void {
    this.cursors.delete(id);
  }

  toJSON(): CursorMap {
    return Object.fromEntries(this.cursors);
  }
}
