// One session, one process. A lease is proper-lockfile's lock directory `.active` inside the session
// directory, taken without waiting and kept fresh by touching its mtime; a lease whose mtime is older
// than `stale` belongs to a dead (or stopped) process and is taken over. Whoever takes a lease writes
// a fresh token into `.active.holder`; a holder that was stopped and woke up finds another token
// there (`holds`), which it checks under the store lock right before a save renames its snapshot
// into place, so it can never write over the turn of the process that took the session from it.
// A command the session started that still runs (command-records.ts) keeps the session in use, lease
// or not: under `full` access it can outlive a killed holder.
// The store lock (.hel/.sessions.lock) is separate and short: it makes "resolve, take the lease" and
// "check the token, rename" atomic, and lets `sessions rm` delete only sessions nobody holds.
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import type ProperLockfile from "proper-lockfile";
import { removeFinishedCommands, runningCommands } from "./command-records.js";
import { SessionError, systemProblem } from "./errors.js";
import { ensureHelDir, helDir } from "../fs/hel-dir.js";
import { NotOwnDirError, ownDir } from "../fs/own-dir.js";
import { sessionPaths, storeLockPath } from "./paths.js";

// Loaded on first use: a new session takes its lease only at its first save, so the library stays
// off the path to the first request.
let lockfile: typeof ProperLockfile | undefined;
const loadLockfile = async (): Promise<typeof ProperLockfile> => (lockfile ??= (await import("proper-lockfile")).default);

export interface LeaseTiming {
  /** A lease untouched for this long is considered left by a dead process. */
  stale: number;
  /** How often the holder touches it; must be well under stale. */
  update: number;
}

// 30 s: a killed process blocks its session for at most half a minute; the holder touches the lease
// every 7.5 s, so four updates in a row must fail (a stalled event loop, a sleeping laptop) before
// another process may take it over.
export const LEASE_TIMING: Readonly<LeaseTiming> = Object.freeze({ stale: 30_000, update: 7_500 });

export interface Lease {
  readonly id: string;
  /** True once proper-lockfile found the lease taken over or gone; the holder must stop saving. */
  readonly lost: boolean;
  onLost(callback: (reason: string) => void): void;
  /**
   * Whether this process still holds the lease: not lost, and its token is the one last written into
   * `.active.holder`. Call it under the store lock, where leases are taken over.
   */
  holds(): Promise<boolean>;
  /** Marks the lease lost (its holder found out another process took it) and tells the onLost callbacks. */
  markLost(reason: string): void;
  /** Idempotent; never throws. */
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** Create .hel/ and the session directory first: for a new session about to be saved. */
  create?: boolean;
  /** Tests shorten this; hel itself always uses LEASE_TIMING. */
  timing?: LeaseTiming;
}

const held = new Map<string, { dir: string; active: string }>();

// proper-lockfile removes its locks on exit through signal-exit; this is a second, dependency-free
// path for the common case of a CLI that catches SIGINT/SIGTERM and then calls process.exit().
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", releaseAllLeasesSync);
}

/** Removes every lease this process holds, synchronously; safe to call from a signal or exit handler. */
function releaseAllLeasesSync(): void {
  for (const [key, { dir, active }] of held) {
    held.delete(key);
    try {
      // Leases are held only after the library was loaded to take them.
      lockfile?.unlockSync(dir, { lockfilePath: active, realpath: false });
    } catch {
      // Already released, lost or removed: nothing left to free.
    }
  }
}

export async function acquireLease(projectDir: string, id: string, options: LeaseOptions = {}): Promise<Lease> {
  const { dir, active, holder } = sessionPaths(projectDir, id);
  const timing = options.timing ?? LEASE_TIMING;
  let lost = false;
  let lostReason = "";
  const callbacks: Array<(reason: string) => void> = [];
  const markLost = (reason: string): void => {
    if (lost) return;
    lost = true;
    lostReason = reason;
    held.delete(dir);
    for (const cb of callbacks) {
      try {
        cb(reason);
      } catch {
        // A callback's failure must not become an uncaught exception inside proper-lockfile's timer.
      }
    }
  };

  let unlock: () => Promise<void>;
  try {
    // Every folder on the way is a real one: a link could take the lease's files out of the project.
    if (options.create) await ensureHelDir(projectDir);
    await ownDir(projectDir, dir, options.create === true);
    // A command the session started may outlive the process that held the lease (see command-records).
    const running = await runningCommands(dir);
    if (running.length > 0) throw commandsRunning(id, running[0]!);
    unlock = await (await loadLockfile()).lock(dir, {
      lockfilePath: active,
      realpath: false,
      retries: 0,
      stale: timing.stale,
      update: timing.update,
      // The default throws from a timer, which would crash hel; a lost lease is reported instead.
      onCompromised: (err) => markLost(err.message),
    });
  } catch (e) {
    throw e instanceof SessionError ? e : leaseError(e, id);
  }
  // Unique among the processes that may ever hold this lease; no need for crypto on this path.
  const token = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  try {
    await writeHolder(holder, token);
  } catch (e) {
    await unlock().catch(() => undefined);
    throw leaseError(e, id);
  }
  held.set(dir, { dir, active });
  await removeFinishedCommands(dir).catch(() => undefined);
  installExitHook();

  let released = false;
  return {
    id,
    get lost() {
      return lost;
    },
    onLost(callback) {
      if (lost) queueMicrotask(() => callback(lostReason));
      else callbacks.push(callback);
    },
    async holds() {
      if (lost) return false;
      const current = await readFile(holder, "utf8").catch(() => null);
      return current === token;
    },
    markLost,
    async release() {
      if (released) return;
      released = true;
      held.delete(dir);
      try {
        await unlock();
      } catch {
        // Lost, or the session directory was deleted with the lease inside it: nothing to free.
      }
    },
  };
}

function commandsRunning(id: string, pgid: number): SessionError {
  return new SessionError(`session ${id} is in use: a command it started is still running (process group ${pgid}) — wait for it to end, or end it with \`kill -- -${pgid}\``, 3);
}

/** Replaced whole (a temporary file renamed over it), so a reader never sees half a token. */
async function writeHolder(path: string, token: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  // Whatever is at the temporary name (one left by a kill, a planted link) goes first: never written through.
  await rm(tmp, { force: true });
  await writeFile(tmp, token, { mode: 0o600, flag: "wx" });
  await rename(tmp, path);
}

function leaseError(e: unknown, id: string): SessionError {
  if (e instanceof NotOwnDirError) return new SessionError(`could not take the lease of session ${id}: ${e.message}`, 2);
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ELOCKED") {
    return new SessionError(`session ${id} is in use by another hel process — wait for it to finish (a lease left by a killed process expires within ${LEASE_TIMING.stale / 1000} s)`, 3);
  }
  if (code === "ENOENT") return new SessionError(`no session ${id} in this project — \`hel sessions ls\` lists them`, 2);
  return new SessionError(`could not take the lease of session ${id}: ${systemProblem(e)} — check that .hel/ is writable`, 1);
}

/**
 * Runs a change to the session's files (as writeFileAtomic's commit step: the rename into place) under
 * the store lock, and only while `lease` is still this process's: a holder that was stopped and woke
 * up after another process took the session over changes nothing in it (transcripts, archives).
 * Throws `lost()` otherwise, with the lease marked lost.
 */
export function whileLeased(projectDir: string, lease: Lease, lost: () => Error): (change: () => Promise<void>) => Promise<void> {
  return (change) =>
    withStoreLock(projectDir, async () => {
      if (!(await lease.holds())) {
        lease.markLost("another process took the session over");
        throw lost();
      }
      await change();
    });
}

/** Whether a live process holds the session's lease (a stale lease counts as free), or a command it started still runs. */
export async function isLeased(projectDir: string, id: string, timing: LeaseTiming = LEASE_TIMING): Promise<boolean> {
  const { dir, active } = sessionPaths(projectDir, id);
  if (await (await loadLockfile()).check(dir, { lockfilePath: active, realpath: false, stale: timing.stale })) return true;
  return (await runningCommands(dir)).length > 0;
}

/**
 * Runs fn holding .hel/.sessions.lock. Waits briefly (the lock is held for milliseconds). Without a
 * .hel directory there is no session to protect, and nothing is created just to lock it.
 */
export async function withStoreLock<T>(projectDir: string, fn: () => Promise<T>): Promise<T> {
  const dir = helDir(projectDir);
  // The lock is a folder made inside .hel: never through a link planted in its place.
  const present = await ownDir(projectDir, dir, false).catch((e: unknown) => {
    throw e instanceof NotOwnDirError ? new SessionError(e.message, 2) : e;
  });
  if (!present) return fn();
  let unlock: () => Promise<void>;
  try {
    unlock = await (await loadLockfile()).lock(dir, {
      lockfilePath: storeLockPath(projectDir),
      realpath: false,
      stale: 10_000,
      retries: { retries: 12, factor: 1.5, minTimeout: 20, maxTimeout: 500 },
      onCompromised: () => undefined,
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOCKED") {
      throw new SessionError("the session store is busy (.hel/.sessions.lock is held by another hel process) — try again in a moment", 3);
    }
    throw new SessionError(`could not lock the session store: ${systemProblem(e)} — check that .hel/ is writable`, 1);
  }
  try {
    return await fn();
  } finally {
    await unlock().catch(() => undefined);
  }
}
