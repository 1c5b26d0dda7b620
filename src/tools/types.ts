// The contract every tool implements: a name, a description for the model, a zod schema for its
// arguments (which also yields the JSON schema sent in the request), and a run function.
// A tool reports a failure the model can act on by throwing ToolError; its message is written for the model.
import type { z } from "zod";
import type { CursorStore } from "./cursors.js";

export const ACCESS_LEVELS = ["read-only", "edit"] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

export interface ToolContext {
  /** Absolute, real path of the project directory (`-C`). */
  projectDir: string;
  access: Access;
  /** Absolute path of the current session's directory, `.hel/sessions/<id>`; its `spill/` is readable. */
  sessionDir: string;
  cursors: CursorStore;
  signal: AbortSignal;
  /** Called before a tool writes into the session directory (a spill), so the session is leased first. */
  claimSessionDir?: () => Promise<unknown>;
  /**
   * A line to end a call's result with when its file was touched by a span of the conversation that
   * has been archived (the agent keeps the archive; tools only ask), or null.
   */
  archiveHint?: (tool: string, args: unknown) => string | null;
  /** Values no tool result may show (the API key); replaced before the model or a spill file sees them. */
  secrets?: readonly string[];
}

export interface Tool<Args = unknown> {
  name: string;
  description: string;
  schema: z.ZodType<Args>;
  /** read_file's own pages are already bounded, so its results are never spilled. */
  spill: boolean;
  run(args: Args, ctx: ToolContext): Promise<string>;
}

/** A failure to report to the model as the tool's result: what failed and what call to make next. */
export class ToolError extends Error {
  override name = "ToolError";
}
