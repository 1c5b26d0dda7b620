// Whether a snapshot.json is one this user's hel wrote for this session of this project. A clone may
// carry `.hel/sessions/<id>/` with any updated_at, and a session may be copied from another project
// or renamed into another id: none of these is continued as hel's own. The proof is an HMAC-SHA-256
// under the per-user key (fs/state-dir.ts, kept where no project can read or write it) over the
// project's real path, the session's id and the SHA-256 of every byte of the file with the MAC's own
// digits as zeros; it sits at the end of the file's first line (snapshot-format.ts). The archive files are covered
// through it: the signed index keeps each one's SHA-256 (archive-store.ts). A snapshot without a valid
// MAC (planted, copied, or saved by a hel that did not sign) is used only when the user adopts it
// (`hel --resume <id> --trust`), and the next save signs it.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { macMatches, macOf, userKey, userStateDir } from "../fs/state-dir.js";
import { AFTER_MAC, MAC_TAIL, UNSIGNED } from "./snapshot-format.js";
import { SessionError, systemProblem } from "./errors.js";

const MAC_DIGITS = UNSIGNED.length;
const ZEROS = Buffer.from(UNSIGNED);

let cached: { dir: string; key: Promise<Buffer> } | null = null;

/** The per-user key, read (or made) once per state folder. */
function sessionKey(): Promise<Buffer> {
  const dir = userStateDir(process.env);
  if (cached?.dir !== dir) {
    const key = userKey(process.env);
    cached = { dir, key };
    // A failure is not kept: the next save tries again.
    key.catch(() => {
      if (cached?.key === key) cached = null;
    });
  }
  return cached.key;
}

/** The key, or why hel cannot sign or check a session, as a line for a person. */
async function keyOr(what: string): Promise<Buffer> {
  try {
    return await sessionKey();
  } catch (e) {
    throw new SessionError(`${what}: hel's state folder ${userStateDir(process.env)} cannot hold its key (${systemProblem(e)}) — make it writable, or set XDG_STATE_HOME to a folder of yours`, 1);
  }
}

function realProject(projectDir: string): string {
  try {
    return realpathSync(projectDir);
  } catch {
    return resolve(projectDir);
  }
}

/** What the MAC is taken of: where the file belongs, and a digest of its bytes (read in pieces, never joined). */
function signedText(projectDir: string, id: string, pieces: readonly Uint8Array[]): string {
  const hash = createHash("sha256");
  for (const piece of pieces) hash.update(piece);
  return `hel snapshot\0${realProject(projectDir)}\0${id}\0${hash.digest("hex")}`;
}

/**
 * Signs the pieces encodeSnapshot made for session `id`: the MAC's zeros in the first piece are
 * replaced by the MAC. Throws a SessionError (exit 1) when the key cannot be had.
 */
export async function signSnapshot(projectDir: string, id: string, pieces: Buffer[]): Promise<void> {
  const key = await keyOr(`could not save session ${id}`);
  const head = pieces[0]!;
  const at = head.lastIndexOf(`${MAC_TAIL}${UNSIGNED}${AFTER_MAC}`) + MAC_TAIL.length;
  head.write(macOf(key, signedText(projectDir, id, pieces)), at, "latin1");
}

/** Whether `bytes` are a snapshot.json this user's hel wrote for session `id` of this project. */
export async function signedByHel(projectDir: string, id: string, bytes: Buffer): Promise<boolean> {
  const key = await keyOr(`could not check session ${id}`);
  let end = bytes.indexOf(0x0a);
  if (end < 0) return false;
  const tail = Buffer.from(AFTER_MAC);
  if (!bytes.subarray(end - tail.length, end).equals(tail)) return false;
  end -= tail.length;
  const at = end - MAC_DIGITS;
  if (at < MAC_TAIL.length || bytes.toString("latin1", at - MAC_TAIL.length, at) !== MAC_TAIL) return false;
  return macMatches(key, signedText(projectDir, id, [bytes.subarray(0, at), ZEROS, bytes.subarray(end)]), bytes.toString("latin1", at, end));
}

/** The line that refuses a session hel did not write here, saying how to take it on deliberately. */
export const notWrittenByHel = (id: string): SessionError =>
  new SessionError(
    `session ${id} was not written by hel here (no valid signature of this user's hel: a session cloned with the project, copied from elsewhere, or saved by an older hel) — if you trust its contents, adopt it with \`hel --resume ${id} --trust\``,
    2,
  );
