// Shared set-up for the tools tests: a real temporary project (with a sibling directory outside it, for
// escape attempts) and the ToolContext a session would give the tools.
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { CursorStore } from "../../src/tools/cursors.js";
import type { ToolContext } from "../../src/tools/types.js";

export interface TempProject {
  ctx: ToolContext;
  /** The project directory (real path). */
  dir: string;
  /** A directory next to the project, outside it. */
  outside: string;
}

const roots: string[] = [];

afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

export async function tempProject(access: ToolContext["access"] = "edit"): Promise<TempProject> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), "hel-tools-")));
  roots.push(root);
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
