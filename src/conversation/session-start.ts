// The session a conversation keeps: a new one, or the one --resume or --continue names (adopted under
// --trust when hel did not write it here), with its request settings from the run's, its usage from
// the ledger, and its file checkpoints bounded and masked.
import type { UsageLedger } from "../agent/usage-ledger.js";
import { startSession, type ActiveSession } from "../session/session.js";
import { requestConfigFor } from "../settings/request-config.js";
import type { Project } from "./project.js";

/** `resume`: the session to continue (an id or a unique prefix); null: --continue's, or a new one. */
export function sessionFor({ dir, sessionsDir, options, apiKey, systemPrompt, warn }: Project, resume: string | null, ledger: UsageLedger): Promise<ActiveSession> {
  return startSession({
    projectDir: sessionsDir ?? dir,
    ...(sessionsDir ? { workDir: dir } : {}),
    resume,
    continueLatest: options.continue,
    adopt: options.trust,
    systemPrompt,
    requestConfig: requestConfigFor(options),
    warn,
    usage: () => ledger.run().total,
    checkpointMaxBytes: options.checkpointMaxMb * 1024 * 1024,
    checkpointSecrets: [apiKey],
  });
}
