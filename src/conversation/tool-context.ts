// What the parent's tools are given when they run, by owner: the front end's policy (access, network,
// approvals, secrets to mask, what the sandbox keeps read-only, the skill folders), the session's port
// (its directory, file cursors, lease, tracked commands, the archive's hints), the change watch (the
// checkpoint and baseline a change is preceded by) and the calling agent (the parent, its edit log).
// A child's is derived from it.
import type { Hints } from "../agent/context/hints.js";
import type { AgentSetup } from "../agent/loop/loop.js";
import type { Baseline } from "../changes/baseline.js";
import type { ActiveSession } from "../session/session.js";
import { EditLog } from "../tools/edit-log.js";
import { keepLostEdits } from "../tools/file/lost-edits.js";
import type { EventSink } from "../agent/events.js";
import { BackgroundJobs, withJobs } from "../tools/command/jobs.js";
import type { CommandApprovals, ProcessGroup } from "../tools/types.js";
import type { Project } from "./project.js";

export interface ToolContextDeps {
  project: Project;
  active: ActiveSession;
  hints: Hints;
  approvals: CommandApprovals;
  /** Kept for review_changes and /diff; null: none. */
  baseline: Baseline | null;
  jobs: BackgroundJobs;
}

export function parentToolContext({ project, active, hints, approvals, baseline, jobs }: ToolContextDeps): AgentSetup["toolContext"] {
  const { dir, options } = project;
  return {
    projectDir: dir,
    policy: { access: options.access, network: options.network, approvals, readOnlyPaths: project.readOnly, secrets: project.secrets, skillDirs: project.skillDirs },
    session: withJobs(
      {
        // Read when a tool needs it: a new session's directory (and id) is made only when first needed.
        get dir() {
          return active.dir;
        },
        root: project.sessionsDir ?? dir,
        cursors: active.cursors,
        claim: () => active.claim(),
        trackCommand: (group: ProcessGroup) => active.trackCommand(group),
        archiveHint: hints.hint,
      },
      jobs,
    ),
    changes: { beforeChange: active.checkpointing.beforeChange, beforeWrite: (file, content) => baseline?.keep(file, content) },
    caller: { label: null, editLog: EditLog.forParent(keepLostEdits({ projectDir: dir })) },
  };
}

/** The session's background jobs, told to the event stream as the parent's. */
export function sessionJobs(emit: EventSink): BackgroundJobs {
  return new BackgroundJobs((event) => emit({ agent: "parent", ...event }));
}
