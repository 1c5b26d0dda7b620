// `hel sessions ls | show | rm`: read and delete this project's saved sessions. `show` shows a session
// hel did not write here too (read-only, saying so), and reads nothing through a link.
import { realpath } from "node:fs/promises";
import { HelError } from "../errors.js";
import { loadChildren } from "../session/child-files.js";
import { latestSessionId, listSessions, removeSessions, resolveSessionId } from "../session/catalog.js";
import { forkSession, rewindSession } from "../session/fork.js";
import { loadSnapshotFile } from "../session/snapshot-file.js";
import { styleFor, terminalSafe } from "./term/kit/style.js";
import { formatChildTranscript, formatDelegations, formatRewind, formatSessionList, formatTranscript } from "./term/transcript.js";
import type { Invocation } from "./options.js";
import { findProjectRoot } from "../conversation/project-root.js";
import { editsOf } from "../session/edits-by-call.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { renderExport } from "../view/export-formats.js";
import type { ExportFormat } from "../view/format-names.js";
import { readPageAssets } from "../view/page-assets.js";
import { readSessionDocument } from "../view/read-session.js";

type SessionsInvocation = Extract<Invocation, { kind: "sessions" | "rewind" }>;

/** `version`: hel's, which an ATIF trajectory names; `env`: where the API key to mask is read. */
export async function runSessionsCommand(invocation: SessionsInvocation, { version, env }: { version: string; env: NodeJS.ProcessEnv } = { version: "unknown", env: process.env }): Promise<number> {
  // Sessions are keyed by the project's real path, as `hel` runs record it.
  const start = await realpath(invocation.cwd).catch(() => {
    throw new HelError(`the project directory ${invocation.cwd} does not exist — check -C`, 2);
  });
  const { root: projectDir } = await findProjectRoot(start);
  const out = (text: string) => process.stdout.write(text.endsWith("\n") ? text : text + "\n");
  if (invocation.kind === "rewind") {
    const id = invocation.id ? await resolveSessionId(projectDir, invocation.id) : await latestSessionId(projectDir);
    if (!id) throw new HelError("this project has no saved session to rewind", 2);
    const report = await rewindSession(projectDir, id, invocation, (line) => process.stderr.write(`hel: ${line}\n`));
    out(formatRewind(id, invocation.to, report));
    return 0;
  }
  switch (invocation.action) {
    case "ls": {
      const sessions = await listSessions(projectDir);
      out(invocation.json ? JSON.stringify(sessions) : formatSessionList(shown(sessions)));
      return 0;
    }
    case "show": {
      const id = await resolveSessionId(projectDir, invocation.ids[0] ?? "");
      const { snapshot: saved, signed } = await loadSnapshotFile(projectDir, id, { unsigned: true });
      if (!signed)
        process.stderr.write(`hel: session ${id} was not written by hel here (cloned, copied from elsewhere, or saved by an older hel): shown as it is, not as hel's own — \`hel --resume ${id} --trust\` adopts it\n`);
      const savedChildren = await loadChildren(projectDir, id);
      // A transcript is hel's own when the signed snapshot holds its hash.
      const vouched = new Map(signed ? (saved.child_transcripts ?? []).map((c) => [c.number, c.sha256]) : []);
      const strangers = savedChildren.filter((c) => vouched.get(c.transcript.number) !== c.sha256).map((c) => c.transcript.number);
      if (signed && strangers.length > 0)
        process.stderr.write(
          `hel: the subagent transcript${strangers.length === 1 ? "" : "s"} ${strangers.join(", ")} of session ${id} ${strangers.length === 1 ? "was" : "were"} not written by hel here: shown as ${strangers.length === 1 ? "it is" : "they are"}, not as hel's own\n`,
        );
      if (invocation.json) {
        out(JSON.stringify({ ...saved, written_by_hel: signed, child_transcripts: savedChildren.map((c) => ({ ...c.transcript, written_by_hel: vouched.get(c.transcript.number) === c.sha256 })) }));
      } else {
        const [snapshot, children] = [shown(saved), shown(savedChildren.map((c) => c.transcript))];
        const style = styleFor(process.stdout, process.env);
        const childViews = children.map((child) => formatChildTranscript(child, editsOf(snapshot.edits, child.number), style));
        out([formatTranscript(snapshot, style), formatDelegations(children), ...childViews].filter((b) => b !== "").join("\n\n"));
      }
      return 0;
    }
    case "export": {
      const id = await resolveSessionId(projectDir, invocation.ids[0] ?? "");
      await exportSession(projectDir, id, invocation.format ?? "html", invocation.output ?? null, version, env.DEEPSEEK_API_KEY);
      return 0;
    }
    case "fork": {
      const id = await resolveSessionId(projectDir, invocation.ids[0] ?? "");
      const fork = await forkSession(projectDir, id, invocation.at);
      out(`forked session ${id} at turn ${fork.turns} as ${fork.id} — continue it with: hel --resume ${fork.id}`);
      return 0;
    }
    case "rm": {
      const removed = await removeSessions(projectDir, invocation.ids);
      // Their file checkpoints go too: refs, rewind journals, and the objects only they kept.
      const store = removed.length > 0 ? await (await import("../changes/checkpoints.js")).findCheckpoints(projectDir).catch(() => null) : null;
      for (const id of removed) {
        await store?.forget(`${id}/`).catch((error: Error) => process.stderr.write(`hel: could not remove the file checkpoints of session ${id}: ${error.message}\n`));
        out(`removed session ${id}`);
      }
      return 0;
    }
  }
}

/**
 * Writes one session in one format to `output` (atomically) or stdout, its secrets masked: the API key
 * of this environment, the value every other writer of hel masks.
 */
async function exportSession(projectDir: string, id: string, format: ExportFormat, output: string | null, version: string, apiKey: string | undefined): Promise<void> {
  const secrets = apiKey ? [apiKey] : [];
  const doc = await readSessionDocument(projectDir, id, secrets);
  const assets = format === "html" ? await readPageAssets() : null;
  const text = renderExport(doc, format, version, assets);
  if (output === null) process.stdout.write(text);
  else {
    await writeFileAtomic(output, Buffer.from(text, "utf8")).catch((error: Error) => {
      throw new HelError(`could not write ${output}: ${error.message} — choose another file with -o`, 1);
    });
    process.stderr.write(`hel: exported session ${id} as ${format} to ${output}\n`);
  }
}

/** The session as the terminal may show it: every text in it (the model's, the user's, files', commands') without control sequences. */
function shown<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value) as T;
  if (Array.isArray(value)) return value.map(shown) as T;
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shown(v)])) as T;
  }
  return value;
}
