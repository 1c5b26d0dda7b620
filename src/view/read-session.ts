// Reads one saved session of a project as the document every view renders: its snapshot (a session hel
// did not write here is read as it is, and says so), its children's transcripts, its archived spans.
// Reads only the session's own files, never through a link, and masks the secrets it is given.
import { archiveStore } from "../session/archive-store.js";
import { loadChildren } from "../session/child-files.js";
import { loadSnapshotFile } from "../session/snapshot-file.js";
import { buildDocument, type SavedSession } from "./build-document.js";
import type { SessionDocument } from "./document.js";

export async function readSessionDocument(projectDir: string, id: string, secrets: readonly string[], now = new Date()): Promise<SessionDocument> {
  const { snapshot, signed } = await loadSnapshotFile(projectDir, id, { unsigned: true });
  const vouched = new Map(signed ? (snapshot.child_transcripts ?? []).map((c) => [c.number, c.sha256]) : []);
  const children = (await loadChildren(projectDir, id)).map((c) => ({ transcript: c.transcript, vouched: vouched.get(c.transcript.number) === c.sha256 }));
  const store = archiveStore(projectDir, id);
  const archive: SavedSession["archive"] = new Map(await Promise.all(snapshot.archive.map(async (entry) => [entry.handle, await store.read(entry)] as const)));
  return buildDocument({ snapshot, signed, children, archive, secrets, exportedAt: now });
}
