// The ToolContext the bench's probe children give a tool: the project read-only, a session directory
// nothing is written to (the probes' results are never long enough to spill), no cancellation.
import { join } from "node:path";
import { CursorStore } from "../src/tools/cursors.js";
import type { ToolContext } from "../src/tools/types.js";

export function probeContext(projectDir: string): ToolContext {
  return {
    projectDir,
    access: "read-only",
    sessionDir: join(projectDir, ".hel", "sessions", "probe"),
    cursors: new CursorStore(),
    signal: new AbortController().signal,
  };
}
