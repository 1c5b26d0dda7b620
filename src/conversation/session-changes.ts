// What a session changed in the project, for review_changes and /diff: what this process's baseline saw;
// when it saw nothing (a resumed session, whose changes came before this process), what the session's
// file checkpoints say it changed.
import type { Baseline } from "../changes/baseline.js";
import type { ProjectChanges } from "../changes/unified-diff.js";
import type { ActiveSession } from "../session/session.js";

export async function sessionChanges(session: ActiveSession, from: Baseline): Promise<ProjectChanges> {
  const seen = await from.changes();
  return seen.files.length > 0 ? seen : ((await session.checkpointing.sinceStart()) ?? seen);
}
