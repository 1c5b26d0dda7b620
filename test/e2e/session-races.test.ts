// Real hel processes racing for sessions: a concurrent resume, a holder stopped past its lease's expiry,
// and many sessions resumed at once. Each asserts what a user would lose: a turn that a process
// reported done (exit 0) must be in the snapshot, and no independent session is refused.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { unstamped } from "../../src/agent/stamps.js";
import { loadSnapshot, saveSnapshot } from "../../src/session/snapshot-file.js";
import type { Snapshot } from "../../src/session/snapshot-format.js";
import { collect, runHel, startHel } from "../helpers/hel.js";
import { ageLocks } from "../helpers/kill-runs.js";
import { tempProject } from "../helpers/temp-project.js";
import { makeSnapshot } from "../helpers/session-fixtures.js";
import { startStubModel, type StubModel } from "../helpers/stub-model.js";
import { waitFor } from "../helpers/wait.js";

let stub: StubModel;
beforeEach(async () => {
  stub = await startStubModel();
});
afterEach(async () => stub.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ARGS = ["--tools", "none", "--effort", "none"];

/** A valid session of about `bytes` bytes on disk: exchanges of 10 KB answers. */
function bigSnapshot(project: string, id: string, bytes: number): Snapshot {
  const snapshot = makeSnapshot(project, id);
  const answer = "x".repeat(10_000);
  for (let i = 0; i * 10_050 < bytes; i++) snapshot.messages.push({ role: "user", content: `old ${i}` }, { role: "assistant", content: answer });
  return snapshot;
}

async function instructions(project: string, id: string): Promise<string[]> {
  return (await loadSnapshot(project, id)).messages.filter((m) => m.role === "user").map((m) => unstamped(m.content));
}

it("a resume that starts while another process finishes its turn never drops that turn", { timeout: 120_000 }, async () => {
  const project = await tempProject();
  const id = "aaaa1111-1111-4111-8111-111111111111";
  // Large enough that reading it takes B longer than A needs to answer, save and leave.
  await saveSnapshot(project, bigSnapshot(project, id, 30e6));
  let startB!: () => void;
  const bMayStart = new Promise<void>((r) => (startB = r));
  stub.before = async ({ instruction }) => {
    if (instruction !== "turn A") return;
    startB();
    await sleep(300);
  };
  const a = runHel({ args: ["-C", project, "--resume", id, ...ARGS, "turn A"], baseUrl: stub.url });
  await bMayStart;
  const b = runHel({ args: ["-C", project, "--resume", id, ...ARGS, "turn B"], baseUrl: stub.url });
  const results = { "turn A": await a, "turn B": await b };
  const saved = await instructions(project, id);
  expect(results["turn A"].code).toBe(0);
  for (const [turn, result] of Object.entries(results)) {
    if (result.code === 0) expect(saved, `${turn} exited 0`).toContain(turn);
    else expect(result.stderr).toMatch(new RegExp(`hel: session ${id} is in use by another hel process`));
  }
});

it("a holder stopped past its lease's expiry finds out before it writes, saves nothing and exits 1", { timeout: 120_000 }, async () => {
  const project = await tempProject();
  const id = "aaaa2222-2222-4222-8222-222222222222";
  await saveSnapshot(project, makeSnapshot(project, id));
  let releaseA!: () => void;
  const aMayAnswer = new Promise<void>((r) => (releaseA = r));
  stub.before = async ({ instruction }) => {
    if (instruction === "turn A") await aMayAnswer;
  };
  const a = startHel({ args: ["-C", project, "--resume", id, ...ARGS, "turn A"], baseUrl: stub.url });
  const aDone = collect(a);
  await waitFor(() => stub.requests.some((r) => r.instruction === "turn A"), "A's request");
  a.kill("SIGSTOP");
  // The lease's expiry is what lets B in: A, stopped, cannot touch its lease, so it is aged as the wait would.
  await ageLocks(project);
  const b = await runHel({ args: ["-C", project, "--resume", id, ...ARGS, "turn B"], baseUrl: stub.url });
  expect(b.code).toBe(0);
  releaseA();
  a.kill("SIGCONT");
  const aResult = await aDone;
  expect(aResult.code).toBe(1);
  expect(aResult.stderr).toMatch(new RegExp(`hel: lost the lease on session ${id} — .*its latest turn is not saved`));
  const saved = await instructions(project, id);
  expect(saved).toContain("turn B");
  expect(saved).not.toContain("turn A");
  // Nothing of A's save attempt is left beside the snapshot.
  expect((await readdir(join(project, ".hel", "sessions", id))).filter((f) => f.endsWith(".tmp"))).toEqual([]);
});

it("twenty processes resuming twenty sessions of one project: none is refused", { timeout: 240_000 }, async () => {
  const project = await tempProject();
  const ids = Array.from({ length: 20 }, (_, i) => `bbbb${String(i).padStart(4, "0")}-0000-4000-8000-000000000000`);
  for (const id of ids) await saveSnapshot(project, bigSnapshot(project, id, 8e6));
  const results = await Promise.all(ids.map((id, i) => runHel({ args: ["-C", project, "--resume", id, ...ARGS, `turn ${i}`], baseUrl: stub.url })));
  expect(results.map((r) => (r.code === 0 ? "ok" : r.stderr.trim()))).toEqual(ids.map(() => "ok"));
  for (const [i, id] of ids.entries()) expect((await instructions(project, id)).at(-1)).toBe(`turn ${i}`);
});
