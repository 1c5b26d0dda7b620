// The project as it was when this session's process began, for review_changes: each file's content
// before hel's tools first wrote it (told through the tools' beforeWrite), and in a git repository the
// commit HEAD was on, read from git's files at once so that commands run later cannot move it first.
import type { ProjectChanges } from "./unified-diff.js";
import { gitHead } from "./git-head.js";

export interface Baseline {
  /** For ToolContext.changes.beforeWrite: only a file's first content is kept. */
  keep(path: string, content: string | null): void;
  changes(): Promise<ProjectChanges>;
}

export function startBaseline(projectDir: string): Baseline {
  const commit = gitHead(projectDir);
  const originals = new Map<string, string | null>();
  return {
    keep(path, content) {
      if (!originals.has(path)) originals.set(path, content);
    },
    async changes() {
      // Loaded only for a review: it is the code that runs git.
      const { projectChanges } = await import("./project-changes.js");
      return projectChanges(projectDir, { commit: await commit, originals });
    },
  };
}
