// A tool context outside any conversation, for running a tool on its own (the bench's probes, the
// tests): the front end allows only `access`, the session is never leased and has archived nothing,
// no checkpoint or baseline is kept, and nobody reads the reports. The agent works alone: an edit that
// another agent's command undid is not looked at again (a conversation's log does, file/lost-edits.ts).
import path from "node:path";
import { CursorStore } from "./cursors.js";
import { EditLog } from "./edit-log.js";
import { noChangeWatch, noReports, type Access, type ToolContext, type ToolScope } from "./types.js";

/** What the calls of a lone agent in `projectDir` share; its session directory is `.hel/sessions/<session>`. */
export function detachedScope(projectDir: string, access: Access, session = "detached"): ToolScope {
  return {
    projectDir,
    policy: { access, network: false, approvals: null, readOnlyPaths: [], secrets: [], skillDirs: [] },
    session: {
      dir: path.join(projectDir, ".hel", "sessions", session),
      root: projectDir,
      cursors: new CursorStore(),
      claim: async () => undefined,
      trackCommand: async () => undefined,
      archiveHint: () => null,
    },
    changes: { ...noChangeWatch },
    caller: { label: null, editLog: EditLog.forParent(async () => null) },
  };
}

/** One call's context in that scope. */
export function detachedContext(projectDir: string, access: Access, session?: string, signal = new AbortController().signal): ToolContext {
  return { ...detachedScope(projectDir, access, session), signal, report: { ...noReports } };
}
