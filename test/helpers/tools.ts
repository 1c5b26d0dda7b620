// Shared set-up for the tools tests: a temporary project with a sibling directory outside it (for
// escape attempts), and the ToolContext a session would give the tools.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { CursorStore } from "../../src/tools/cursors.js";
import type { ToolContext } from "../../src/tools/types.js";
import { tempProject } from "./temp-project.js";

export interface ToolProject {
  ctx: ToolContext;
  /** The project directory (real path). */
  dir: string;
  /** A directory next to the project, outside it. */
  outside: string;
}

export async function toolProject(access: ToolContext["access"] = "edit"): Promise<ToolProject> {
  const root = await tempProject();
  const dir = path.join(root, "project");
  const outside = path.join(root, "outside");
  await mkdir(dir);
  await mkdir(outside);
  const ctx: ToolContext = {
    projectDir: dir,
    access,
    sessionDir: path.join(dir, ".hel", "sessions", "s1"),
    cursors: new CursorStore(),
    signal: new AbortController().signal,
  };
  return { ctx, dir, outside };
}
