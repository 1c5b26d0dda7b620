// Sessions a clone carries are not hel's own. The attacker saves a session with hel at the very path
// the victim's clone will have (CI paths are predictable), under the attacker's own per-user key, with
// an updated_at in the future; the victim's hel, run as root with the victim's state folder in this
// process as the command runs it (helpers/conversation.ts): `-c` continues the victim's newest session
// and says which it passed over, `--resume <id>` refuses with exit 2 and one line saying why and how to
// adopt it, `--resume <id> --trust` adopts it (its next save signs it), `sessions ls` marks it and
// `sessions show` shows it read-only, saying so; a subagent transcript planted in (or changed in) a
// session of the user's own is shown, but said not to be hel's.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type SimStep, type Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { runHel } from "../helpers/hel.js";
import { ID_B, makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const PLANTED = ID_B;
const FUTURE = "2099-01-01T00:00:00.000Z";

/** A session saved by hel as the attacker runs it: same project path, the attacker's own state folder and key. */
async function plant(project: string): Promise<void> {
  const victims = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = await mkdtemp(join(tmpdir(), "hel-attacker-state-"));
  try {
    const snapshot = makeSnapshot(project, PLANTED, { updated_at: FUTURE });
    snapshot.messages.push({ role: "user", content: "[#9] the attacker's instruction" }, { role: "assistant", content: "planted answer" });
    await saveSnapshot(project, snapshot);
  } finally {
    process.env.XDG_STATE_HOME = victims;
  }
}

const sent = (): string => sim.requests.map((r) => JSON.stringify((r.body as ChatRequest).messages)).join("\n");
const helLines = (stderr: string): string[] => stderr.split("\n").filter((l) => l.startsWith("hel: "));
const refusal = `hel: session ${PLANTED} was not written by hel here (no valid signature of this user's hel: a session cloned with the project, copied from elsewhere, or saved by an older hel) — if you trust its contents, adopt it with \`hel --resume ${PLANTED} --trust\`\n`;

it("a clone's session dated in the future is passed over by -c, which continues the user's own newest and says so", { timeout: 60_000 }, async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const own = await runHelInProcess({ args: ["-C", project, "--json", "my first instruction"], baseUrl: sim.url });
  expect(own.code).toBe(0);
  const ownId = JSON.parse(own.stdout).session_id as string;
  await plant(project);

  const continued = await runHelInProcess({ args: ["-C", project, "--json", "-c", "and next"], baseUrl: sim.url });
  expect(continued.code).toBe(0);
  expect(JSON.parse(continued.stdout).session_id).toBe(ownId);
  expect(helLines(continued.stderr)).toEqual([`hel: -c passed over a newer session that hel did not write here (${PLANTED}) — \`hel sessions ls\` marks them; \`hel --resume <id> --trust\` adopts one`]);
  expect(sent()).toContain("my first instruction");
  expect(sent()).not.toContain("the attacker's instruction");
});

it("with only a clone's session, -c finds nothing to continue and says which it passed over; nothing is sent", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  await plant(project);
  const continued = await runHelInProcess({ args: ["-C", project, "-c", "go on"], baseUrl: sim.url });
  expect(continued.code).toBe(2);
  expect(helLines(continued.stderr)).toHaveLength(2);
  expect(continued.stderr).toContain(`passed over a newer session that hel did not write here (${PLANTED})`);
  expect(continued.stderr).toContain("hel: this project has no saved session to continue");
  expect(sim.requests).toHaveLength(0);
});

it("--resume of a clone's session refuses with exit 2 and one line; with --trust it is adopted, and signed by its save", { timeout: 60_000 }, async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  await plant(project);

  const refused = await runHelInProcess({ args: ["-C", project, "--resume", PLANTED.slice(0, 8), "go on"], baseUrl: sim.url });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toBe(refusal);
  expect(sim.requests).toHaveLength(0);

  const adopted = await runHelInProcess({ args: ["-C", project, "--json", "--resume", PLANTED, "--trust", "go on"], baseUrl: sim.url });
  expect(adopted.code).toBe(0);
  // (The fixture's session offered read_file alone: the resume says so on a line of its own.)
  expect(helLines(adopted.stderr)[0]).toBe(`hel: adopting session ${PLANTED}, which hel did not write here (--trust): its next save signs it as hel's own`);
  expect(sent()).toContain("the attacker's instruction");
  // The user's hel signed it: a plain resume, and -c, take it now, with no question and no warning.
  const again = await runHelInProcess({ args: ["-C", project, "--json", "-c", "once more"], baseUrl: sim.url });
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout).session_id).toBe(PLANTED);
  expect(helLines(again.stderr)).toEqual([]);
});

it("sessions ls marks a clone's session; sessions show shows it read-only, saying so; sessions fork refuses it", async () => {
  const project = await tempProject();
  await plant(project);
  const listed = await runHelInProcess({ args: ["-C", project, "sessions", "ls"] });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(new RegExp(`^${PLANTED.slice(0, 8)} .*\\[not written by hel here\\] What does a\\.ts export\\?$`, "m"));
  const json = await runHelInProcess({ args: ["-C", project, "sessions", "ls", "--json"] });
  expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ id: PLANTED, written_by_hel: false, error: null })]);

  const shown = await runHelInProcess({ args: ["-C", project, "sessions", "show", PLANTED] });
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("planted answer");
  expect(helLines(shown.stderr)).toEqual([
    `hel: session ${PLANTED} was not written by hel here (cloned, copied from elsewhere, or saved by an older hel): shown as it is, not as hel's own — \`hel --resume ${PLANTED} --trust\` adopts it`,
  ]);
  const shownJson = await runHelInProcess({ args: ["-C", project, "sessions", "show", PLANTED, "--json"] });
  expect(JSON.parse(shownJson.stdout)).toMatchObject({ session_id: PLANTED, written_by_hel: false });
  // A fork would make it hel's own by another name: refused the same way.
  // A fork masks the key of the process it runs in: hel as its own process.
  const forked = await runHel({ args: ["-C", project, "sessions", "fork", PLANTED] });
  expect(forked.code).toBe(2);
  expect(forked.stderr).toBe(refusal);
  // Looking wrote nothing: the file is still the attacker's.
  expect(await readFile(join(project, ".hel", "sessions", PLANTED, "snapshot.json"), "utf8")).toContain(FUTURE);
});

/** One delegation, then an answer. */
function delegating(req: ChatRequest): SimStep {
  if (lastUserText(req).startsWith("You are a subagent")) return { content: "child done" };
  const last = req.messages.at(-1)!;
  if (last.role === "user") return { tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "Report done." }) }] };
  return { content: "done" };
}

it("a subagent transcript changed in a session of the user's own is shown, but said not to be hel's", { timeout: 60_000 }, async () => {
  sim = await startSimulator({ policy: delegating });
  const project = await tempProject();
  const run = await runHelInProcess({ args: ["-C", project, "--json", "--delegate", "task-only", "--effort", "none", "go"], baseUrl: sim.url });
  expect(run.code).toBe(0);
  const id = JSON.parse(run.stdout).session_id as string;
  const show = () => runHelInProcess({ args: ["-C", project, "sessions", "show", id, "--json"] });
  const asWritten = await show();
  expect(helLines(asWritten.stderr)).toEqual([]);
  expect(JSON.parse(asWritten.stdout).child_transcripts).toEqual([expect.objectContaining({ number: 1, written_by_hel: true })]);

  const file = join(project, ".hel", "sessions", id, "children", "1.json");
  await writeFile(file, (await readFile(file, "utf8")).replace("child done", "child lied"));
  const changed = await show();
  expect(changed.code).toBe(0);
  expect(helLines(changed.stderr)).toEqual([`hel: the subagent transcript 1 of session ${id} was not written by hel here: shown as it is, not as hel's own`]);
  expect(JSON.parse(changed.stdout).child_transcripts).toEqual([expect.objectContaining({ number: 1, written_by_hel: false })]);
});
