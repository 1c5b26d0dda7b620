// The edits a session stored, by the call that made them: what a view shows under a call (the
// transcript of `hel sessions show`, an editor's replay of a loaded session).
import type { FileEdit } from "../changes/file-edit.js";
import type { StoredEdit } from "./snapshot-format.js";

/** The edits the calls of one agent made: the parent's (`delegation` undefined) or one subagent's. */
export function editsOf(stored: readonly StoredEdit[] | undefined, delegation?: number): Map<string, FileEdit> {
  return new Map((stored ?? []).filter((e) => e.delegation === delegation).map((e) => [e.call_id, e.edit]));
}
