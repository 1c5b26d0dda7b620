// Shared set-up for the tools tests: a temporary project with a sibling directory outside it (for
// escape attempts), and the ToolContext a lone agent's session would give the tools.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { detachedContext } from "../../src/tools/detached-context.js";
import type { Access, ToolContext, ToolPolicy } from "../../src/tools/types.js";
import { tempProject } from "./temp-project.js";

export interface ToolProject {
  ctx: ToolContext;
  /** The project directory (real path). */
  dir: string;
  /** A directory next to the project, outside it. */
  outside: string;
}

export async function toolProject(access: Access = "edit"): Promise<ToolProject> {
  const root = await tempProject();
  const dir = path.join(root, "project");
  const outside = path.join(root, "outside");
  await mkdir(dir);
  await mkdir(outside);
  return { ctx: detachedContext(dir, access, "s1"), dir, outside };
}

/** `ctx` under a policy changed as given. */
export function withPolicy(ctx: ToolContext, changes: Partial<ToolPolicy>): ToolContext {
  return { ...ctx, policy: { ...ctx.policy, ...changes } };
}
