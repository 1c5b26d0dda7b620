// hel's own state outside any project: `$XDG_STATE_HOME/hel/`, else `~/.local/state/hel/`. What lives
// here must not be writable by a cloned repository or by a sandboxed command (the sandbox binds every
// path outside the project read-only), so stores that another program would read as configuration
// (the checkpoint repositories) and the per-user key that marks what hel wrote itself live here.
// The folder is made mode 700 and must be a real directory owned by this user: a link, or a folder
// another user could have made, is refused rather than followed.
import { randomBytes, createHmac, timingSafeEqual } from "node:crypto";
import { chmod, link, lstat, mkdir, open, readFile, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The folder of hel's state; nothing is made. */
export function userStateDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "hel");
}

/** Makes the state folder (mode 700) when missing and checks it is this user's own directory. */
export async function ensureStateDir(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = userStateDir(env);
  await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
  await mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "EEXIST") throw e;
  });
  const info = await lstat(dir);
  if (info.isSymbolicLink() || !info.isDirectory()) throw new Error(`${dir} is not a directory (a link or a file); remove it and hel makes its state folder anew`);
  if (typeof process.getuid === "function" && info.uid !== process.getuid()) throw new Error(`${dir} belongs to another user; remove it and hel makes its state folder anew`);
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
  return dir;
}

const KEY_BYTES = 32;

/**
 * The per-user key that marks files hel wrote itself (sessions, archives, memos in a project's `.hel/`),
 * made once and kept in the state folder, mode 600. Two processes making it at once agree: each writes
 * a whole key under a name of its own and links it into place; the loser reads the winner's.
 */
export async function userKey(env: NodeJS.ProcessEnv): Promise<Buffer> {
  const dir = await ensureStateDir(env);
  const path = join(dir, "key");
  const existing = await readKey(path);
  if (existing) return existing;
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(tmp, "wx", 0o600);
  try {
    await handle.writeFile(randomBytes(KEY_BYTES));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, path).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
  } finally {
    await unlink(tmp).catch(() => {});
  }
  const made = await readKey(path);
  if (!made) throw new Error(`${path} is not a key hel made; remove it and hel makes a new one`);
  return made;
}

async function readKey(path: string): Promise<Buffer | null> {
  const info = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw e;
  });
  if (info === null) return null;
  if (!info.isFile() || info.size !== KEY_BYTES) throw new Error(`${path} is not a key hel made; remove it and hel makes a new one`);
  return readFile(path);
}

/** The MAC of `data` under the user's key, hex. */
export function macOf(key: Buffer, data: string | Uint8Array): string {
  return createHmac("sha256", key).update(data).digest("hex");
}

/** Whether `mac` is the MAC of `data` under the key, compared in constant time. */
export function macMatches(key: Buffer, data: string | Uint8Array, mac: string): boolean {
  const want = Buffer.from(macOf(key, data), "hex");
  const got = Buffer.from(mac, "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}
