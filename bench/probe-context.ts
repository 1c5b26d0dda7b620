// The ToolContext the bench's probe children give a tool: the project read-only, a session directory
// nothing is written to (the probes' results are never long enough to spill), no cancellation.
import { detachedContext } from "../src/tools/detached-context.js";
import type { ToolContext } from "../src/tools/types.js";

export function probeContext(projectDir: string): ToolContext {
  return detachedContext(projectDir, "read-only", "probe");
}
