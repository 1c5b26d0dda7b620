// Archives are checked: hel, run in this process as the command runs it (helpers/conversation.ts),
// folds an episode into the archive, and a resumed session reads it back with recall and ask while the
// file is as hel wrote it. Once the file is changed outside hel (a value in it edited, the JSON still
// valid), the resume warns on one stderr line and recall and ask say the span was changed instead of
// serving it as exact. A version-2 snapshot whose index has no hashes (written before archives were
// checked, and so before snapshots were signed) is refused until the user adopts it; adopted, its
// archive files are hashed as they are, served, and kept checked.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type SimStep, type Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import { archiveStore } from "../../src/session/archive-store.js";
import { loadSnapshot, saveSnapshot } from "../../src/session/snapshot-file.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { unsign } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const content = (m: Message): string => (typeof m.content === "string" ? m.content : "");

/** "look": read a.txt, fold it away, answer. "recall it": recall and ask about the fold's handle, answer with both results. */
function policy(req: ChatRequest): SimStep {
  if (lastUserText(req).startsWith("You are a subagent")) return { content: "the number was 41" };
  const last = req.messages.at(-1)!;
  const handle = req.messages.map((m) => /handle: ([a-z0-9]{4,12})/.exec(content(m))?.[1]).find(Boolean);
  if (last.role === "user" && last.content.endsWith("] look")) return { tool_calls: [call("read_file", { path: "a.txt" })] };
  if (last.role === "tool" && content(last).includes("the number is 41")) {
    const since = /^\[#(\d+)\] look$/m.exec(req.messages.map(content).join("\n"))![1];
    return { tool_calls: [call("fold", { since: `#${since}`, note: { changed: "nothing", learned: "a.txt holds a number", decided: "-", open: "-" } })] };
  }
  if (last.role === "user" && last.content.endsWith("] recall it")) return { tool_calls: [call("recall", { handle }), call("ask", { handle, question: "Which number did a.txt hold?" })] };
  if (last.role === "tool" && req.messages.at(-2)!.role === "tool") return { content: req.messages.slice(-2).map(content).join("\n---\n") };
  return { content: "done" };
}

/** hel's own lines on stderr, apart from the progress lines. */
const warnings = (stderr: string): string[] => stderr.split("\n").filter((l) => l.startsWith("hel: "));

const ARGS = ["--tools", "read_file,fold,recall,ask", "--effort", "none", "--json"];

it("recall and ask serve an archive as hel wrote it, and refuse one changed outside hel; the resume warns", { timeout: 60_000 }, async () => {
  sim = await startSimulator({ policy });
  const project = await tempProject();
  await writeFile(join(project, "a.txt"), "the number is 41\n");
  const first = await runHelInProcess({ args: ["-C", project, ...ARGS, "look"], baseUrl: sim.url });
  expect(first.code).toBe(0);
  const id = JSON.parse(first.stdout).session_id as string;
  const archiveDir = join(project, ".hel", "sessions", id, "archive");
  const [entry] = (await loadSnapshot(project, id)).archive;
  expect(entry!.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(await readdir(archiveDir)).toEqual([`${entry!.handle}.json`]);

  const intact = await runHelInProcess({ args: ["-C", project, "--resume", id, ...ARGS, "recall it"], baseUrl: sim.url });
  expect(intact.code).toBe(0);
  expect(warnings(intact.stderr)).toEqual([]);
  const [recalled, asked] = (JSON.parse(intact.stdout).answer as string).split("\n---\n");
  expect(recalled).toContain("the number is 41");
  expect(asked).toMatch(/the number was 41$/);

  const file = join(archiveDir, `${entry!.handle}.json`);
  await writeFile(file, (await readFile(file, "utf8")).replace("the number is 41", "the number is 42"));
  const changed = await runHelInProcess({ args: ["-C", project, "--resume", id, ...ARGS, "recall it"], baseUrl: sim.url });
  expect(changed.code).toBe(0);
  expect(warnings(changed.stderr)).toEqual([`hel: session ${id}: the archive of ${entry!.handle} was changed outside hel (or deleted); recall and ask will not serve it`]);
  const why = `its archive file ${file} was changed outside hel (it no longer matches the SHA-256 the session keeps), so it cannot be served as the exact span. The note in the conversation is all that is left of it.`;
  const [recall, ask] = (JSON.parse(changed.stdout).answer as string).split("\n---\n");
  expect(recall).toMatch(new RegExp(`Error: cannot recall ${entry!.handle}: `));
  expect(recall!.endsWith(why)).toBe(true);
  expect(ask!.endsWith(`Error: cannot ask about ${entry!.handle}: ${why}`)).toBe(true);
  expect(recall).not.toContain("the number is 42");
});

it("a version-2 snapshot whose archive index has no hashes is adopted with --trust, and its archive is served and hashed from then on", { timeout: 60_000 }, async () => {
  sim = await startSimulator({ policy });
  const project = await tempProject();
  await writeFile(join(project, "a.txt"), "the number is 41\n");
  const first = await runHelInProcess({ args: ["-C", project, ...ARGS, "look"], baseUrl: sim.url });
  const id = JSON.parse(first.stdout).session_id as string;
  const snapshot = await loadSnapshot(project, id);
  const { sha256: _, ...unhashed } = snapshot.archive[0]!;
  await saveSnapshot(project, { ...snapshot, archive: [unhashed] });
  await unsign(project, id);
  const file = join(project, ".hel", "sessions", id, "snapshot.json");
  expect((await readFile(file, "utf8")).includes("sha256")).toBe(false);
  // An index entry without a hash is nothing hel can vouch for: not served from a session, even a signed one.
  expect((await archiveStore(project, id).read(unhashed)).ok).toBe(false);
  const refused = await runHelInProcess({ args: ["-C", project, "--resume", id, ...ARGS, "recall it"], baseUrl: sim.url });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toBe(
    `hel: session ${id} was not written by hel here (no valid signature of this user's hel: a session cloned with the project, copied from elsewhere, or saved by an older hel) — if you trust its contents, adopt it with \`hel --resume ${id} --trust\`\n`,
  );
  const resumed = await runHelInProcess({ args: ["-C", project, "--resume", id, "--trust", ...ARGS, "recall it"], baseUrl: sim.url });
  expect(resumed.code).toBe(0);
  expect(warnings(resumed.stderr)).toEqual([`hel: adopting session ${id}, which hel did not write here (--trust): its next save signs it as hel's own`]);
  expect(JSON.parse(resumed.stdout).answer).toContain("the number is 41");
  // Signed now, with the archive's hash: a plain resume takes it.
  expect((await loadSnapshot(project, id)).archive[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
});
