// `hel sessions ls | show | rm`: read and delete this project's saved sessions. `show` shows a session
// hel did not write here too (read-only, saying so), and reads nothing through a link.
import { createHash } from "node:crypto";
import { readdir, realpath } from "node:fs/promises";
import { HelError } from "../errors.js";
import { join } from "node:path";
import { ChildTranscriptSchema, type ChildTranscript } from "../agent/children/child-transcript.js";
import { sessionPaths } from "../session/paths.js";
import { latestSessionId, listSessions, removeSessions, resolveSessionId } from "../session/catalog.js";
import { forkSession, rewindSession } from "../session/fork.js";
import { loadSnapshotFile } from "../session/snapshot-file.js";
import { ownDir } from "../fs/own-dir.js";
import { readRegularFile } from "../fs/regular-file.js";
import { styleFor, terminalSafe } from "./term/kit/style.js";
import { formatChildTranscript, formatDelegations, formatRewind, formatSessionList, formatTranscript } from "./term/transcript.js";
import type { Invocation } from "./options.js";
import { findProjectRoot } from "../conversation/project-root.js";
import { editsOf } from "../session/edits-by-call.js";

type SessionsInvocation = Extract<Invocation, { kind: "sessions" | "rewind" }>;

export async function runSessionsCommand(invocation: SessionsInvocation): Promise<number> {
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
    case "fork": {
      const id = await resolveSessionId(projectDir, invocation.ids[0] ?? "");
      const fork = await forkSession(projectDir, id, invocation.at);
      out(`forked session ${id} at turn ${fork.turns} as ${fork.id} — continue it with: hel --resume ${fork.id}`);
      return 0;
    }
    case "rm": {
      // Their worktrees go too: none with unmerged changes unless --force, and then no session goes either.
      const { sessionWorktrees } = await import("./worktrees-command.js");
      const worktrees = await sessionWorktrees(projectDir, await Promise.all(invocation.ids.map((id) => resolveSessionId(projectDir, id))), invocation.force ?? false);
      const removed = await removeSessions(projectDir, invocation.ids);
      for (const line of await worktrees.remove(removed)) out(line);
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

/** The session as the terminal may show it: every text in it (the model's, the user's, files', commands') without control sequences. */
function shown<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value) as T;
  if (Array.isArray(value)) return value.map(shown) as T;
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shown(v)])) as T;
  }
  return value;
}

/** A transcript is a child's conversation, as a snapshot is the parent's: bounded all the same. */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

async function loadChildren(projectDir: string, id: string): Promise<{ transcript: ChildTranscript; sha256: string }[]> {
  const dir = sessionPaths(projectDir, id).children;
  const real = await ownDir(projectDir, dir, false).catch((e: Error) => {
    throw new HelError(`${e.message} to show the rest of the session`, 2);
  });
  const names = real ? await readdir(dir) : [];
  const numbered = names.filter((name) => /^\d+\.json$/.test(name)).sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
  return Promise.all(
    numbered.map(async (name) => {
      const file = join(dir, name);
      let parsed: ReturnType<typeof ChildTranscriptSchema.safeParse> | undefined;
      let text = "";
      try {
        text = await readRegularFile(file, MAX_TRANSCRIPT_BYTES, false);
        parsed = ChildTranscriptSchema.safeParse(JSON.parse(text));
      } catch {
        // Not JSON: reported below like any other broken transcript.
      }
      if (!parsed?.success) throw new HelError(`the subagent transcript ${file} is damaged — delete it to show the rest of the session`, 2);
      return { transcript: parsed.data, sha256: createHash("sha256").update(text).digest("hex") };
    }),
  );
}
