// What the parent's tools are given when they run: the project, its access and network, the session's
// directory and file cursors, the edit log, the archive's hints, the secrets to mask, what the sandbox
// keeps read-only, the approvals, and the session's hooks into each call (its lease, the commands it
// tracks, the baseline and checkpoint a change is preceded by). A child's is derived from it.
import type { Hints } from "../agent/context/hints.js";
import type { AgentSetup } from "../agent/loop/loop.js";
import type { Baseline } from "../changes/baseline.js";
import type { ActiveSession } from "../session/session.js";
import { EditLog } from "../tools/edit-log.js";
import { keepLostEdits } from "../tools/file/lost-edits.js";
import type { CommandApprovals, ProcessGroup } from "../tools/types.js";
import type { Project } from "./project.js";

export interface ToolContextDeps {
  project: Project;
  active: ActiveSession;
  hints: Hints;
  approvals: CommandApprovals;
  /** Kept for review_changes and /diff; null: none. */
  baseline: Baseline | null;
}

export function parentToolContext({ project, active, hints, approvals, baseline }: ToolContextDeps): AgentSetup["toolContext"] {
  const { dir, options } = project;
  return {
    projectDir: dir,
    access: options.access,
    // Read when a tool runs: a new session's directory (and id) is made only when first needed.
    get sessionDir() {
      return active.dir;
    },
    ...(project.skillDirs.length > 0 ? { skillDirs: project.skillDirs } : {}),
    cursors: active.cursors,
    editLog: EditLog.forParent(keepLostEdits({ projectDir: dir })),
    archiveHint: hints.hint,
    secrets: project.secrets,
    network: options.network,
    readOnlyPaths: project.readOnly,
    approvals,
    claimSessionDir: () => active.claim(),
    trackCommand: (group: ProcessGroup) => active.trackCommand(group),
    ...(baseline ? { beforeWrite: baseline.keep } : {}),
    beforeChange: active.checkpointing.beforeChange,
  };
}
