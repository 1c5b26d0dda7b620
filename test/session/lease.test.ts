import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireLease, isLeased, LEASE_TIMING, withStoreLock, type Lease } from "../../src/session/lease.js";
import { sessionPaths } from "../../src/session/paths.js";
import { removeSessions } from "../../src/session/catalog.js";
import { loadSnapshot, saveSnapshot } from "../../src/session/snapshot-file.js";
import { compiledSrc } from "../helpers/compiled-src.js";
import { ID_A, makeSnapshot, sessionError } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let modules: string;
let project: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  modules = compiledSrc();
});
beforeEach(async () => {
  project = await tempProject();
  await saveSnapshot(project, makeSnapshot(project, ID_A));
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts a second process holding the lease (or the store lock); resolves once it says "held". */
async function holder(mode: string, options: { staleMs?: number; env?: Record<string, string> } = {}): Promise<ChildProcess> {
  const args = [join(import.meta.dirname, "../helpers/lease-child.mjs"), modules, project, ID_A, mode];
  if (options.staleMs) args.push(String(options.staleMs));
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...options.env } });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("held") && resolve());
    child.on("exit", (code) => reject(new Error(`lease child exited (${code}) before holding: ${stderr}`)));
  });
  return child;
}

const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve({ code: child.exitCode, signal: child.signalCode }) : new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

const active = () => sessionPaths(project, ID_A).active;

describe("lease timing", () => {
  it("production: a dead process's lease expires within 30 s, and the holder touches it well inside that", () => {
    expect(LEASE_TIMING.stale).toBeLessThanOrEqual(30_000);
    expect(LEASE_TIMING.update).toBeGreaterThanOrEqual(1000);
    expect(LEASE_TIMING.update).toBeLessThanOrEqual(LEASE_TIMING.stale / 3);
  });
});

describe("one session, one process", () => {
  it("a lease held by a live process refuses a second one with exit 3; reading is still allowed", async () => {
    await holder("plain");
    expect(await isLeased(project, ID_A)).toBe(true);
    const err = await sessionError(() => acquireLease(project, ID_A));
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe(`session ${ID_A} is in use by another hel process — wait for it to finish (a lease left by a killed process expires within 30 s)`);
    expect(await loadSnapshot(project, ID_A)).toEqual(makeSnapshot(project, ID_A));
  });

  it("`sessions rm` is refused with exit 3 while another process holds the lease, and removes nothing", async () => {
    await holder("plain");
    const err = await sessionError(() => removeSessions(project, [ID_A]));
    expect(err.exitCode).toBe(3);
    expect(existsSync(sessionPaths(project, ID_A).snapshot)).toBe(true);
  });

  it("the lease of a SIGKILLed process blocks until it is stale, then is taken over", async () => {
    const child = await holder("plain", { staleMs: 2000 });
    child.kill("SIGKILL");
    await exited(child);
    expect(existsSync(active())).toBe(true); // nothing could clean up
    const timing = { stale: 2000, update: 1000 };
    expect((await sessionError(() => acquireLease(project, ID_A, { timing }))).exitCode).toBe(3);
    let lease: Lease | undefined;
    const takeOver = async () => (lease = await acquireLease(project, ID_A, { timing }).catch(() => undefined)) !== undefined;
    await waitFor(takeOver, "the stale lease to be taken over", { timeoutMs: 2000 + 1500, everyMs: 100 });
    await lease!.release();
  });

  it("with the production timing, a dead process's lease refuses at 20 s and is taken over at 31 s", async () => {
    const child = await holder("plain");
    child.kill("SIGKILL");
    await exited(child);
    const age = (seconds: number) => utimesSync(active(), new Date(Date.now() - seconds * 1000), new Date(Date.now() - seconds * 1000));
    age(20);
    expect(await isLeased(project, ID_A)).toBe(true);
    expect((await sessionError(() => acquireLease(project, ID_A))).exitCode).toBe(3);
    age(31);
    expect(await isLeased(project, ID_A)).toBe(false);
    const lease = await acquireLease(project, ID_A);
    expect(existsSync(active())).toBe(true);
    await lease.release();
    expect(existsSync(active())).toBe(false);
  });

  for (const mode of ["plain", "exit", "drain", "close"]) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      it(`the lease is released when the holder gets ${signal} (${mode} handling)`, async () => {
        const child = await holder(mode);
        expect(existsSync(active())).toBe(true);
        child.kill(signal);
        const { code, signal: died } = await exited(child);
        if (mode === "plain") expect(died).toBe(signal);
        if (mode === "exit") expect(code).toBe(signal === "SIGINT" ? 130 : 143);
        expect(existsSync(active())).toBe(false);
        const lease = await acquireLease(project, ID_A);
        await lease.release();
      });
    }
  }
});

describe("the lease in this process", () => {
  it("needs the session directory unless asked to create it", async () => {
    const other = "eeee5555-5555-4555-8555-555555555555";
    const err = await sessionError(() => acquireLease(project, other));
    expect([err.exitCode, err.message]).toEqual([2, `no session ${other} in this project — \`hel sessions ls\` lists them`]);
    const lease = await acquireLease(project, other, { create: true });
    expect(existsSync(sessionPaths(project, other).active)).toBe(true);
    await lease.release();
    await lease.release(); // idempotent
    expect(existsSync(sessionPaths(project, other).active)).toBe(false);
  });

  it("a lease taken away is reported as lost, never thrown, and stops saving", async () => {
    const lease = await acquireLease(project, ID_A, { timing: { stale: 2000, update: 1000 } });
    const reasons: string[] = [];
    lease.onLost((reason) => reasons.push(reason));
    rmdirSync(active()); // another process (or a person) removed it
    await waitFor(() => lease.lost, "the holder to notice", { timeoutMs: 5000 });
    expect(reasons).toHaveLength(1);
    const late: string[] = [];
    lease.onLost((reason) => late.push(reason));
    await waitFor(() => late.length > 0, "a listener added after the loss to hear of it");
    expect(late).toEqual(reasons);
    const err = await sessionError(() => saveSnapshot(project, makeSnapshot(project, ID_A), { lease }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(/^session .* was not saved: its lease was lost, another hel process may be using it — /);
    await lease.release();
  });
});

describe("the store lock", () => {
  it("waits for a brief holder", async () => {
    await holder("store", { env: { HOLD_MS: "300" } });
    const started = Date.now();
    expect(await withStoreLock(project, async () => "ran")).toBe("ran");
    expect(Date.now() - started).toBeGreaterThan(50);
  });

  it("gives up on a long holder with exit 3", async () => {
    await holder("store", { env: { HOLD_MS: "60000" } });
    const err = await sessionError(() => withStoreLock(project, async () => "ran"));
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe("the session store is busy (.hel/.sessions.lock is held by another hel process) — try again in a moment");
  });

  it("is released when fn throws", async () => {
    await expect(withStoreLock(project, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await withStoreLock(project, async () => "again")).toBe("again");
    expect(existsSync(join(project, ".hel/.sessions.lock"))).toBe(false);
  });
});
