// Stamps: every user message and tool result opens with `[#N] `, N counting up through the session
// (children included) and kept across a resume; a version-1 snapshot resumes with its messages'
// bytes untouched, stamps only its new messages, and is written back as version 2.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { parseStampRef, StampCounter, stampOf } from "../../src/agent/stamps.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runInProcess } from "../helpers/conversation.js";
import { ID_A, makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it("a counter stamps text with the next number; stamps are read back from user and tool messages only", () => {
  const stamps = new StampCounter(41);
  expect(stamps.stamp("go")).toBe("[#42] go");
  expect(stamps.last).toBe(42);
  expect(stampOf({ role: "user", content: "[#42] go" })).toBe(42);
  expect(stampOf({ role: "tool", tool_call_id: "c", content: "[#7] ok" })).toBe(7);
  expect(stampOf({ role: "assistant", content: "[#7] not a stamp" })).toBeNull();
  expect(stampOf({ role: "user", content: "[#7]no space" })).toBeNull();
  expect([parseStampRef("#12"), parseStampRef("[#12]"), parseStampRef(" 12 "), parseStampRef("twelve"), parseStampRef("#-1")]).toEqual([12, 12, 12, null, null]);
});

it("a version-1 snapshot resumes: its messages are sent as they were, new ones are stamped from #1, and it is saved as version 2", async () => {
  const project = await tempProject();
  const { stamps: _, archive: __, ...v2 } = makeSnapshot(project, ID_A);
  const v1 = { ...v2, schema_version: 1, compaction: null };
  const dir = join(project, ".hel", "sessions", ID_A);
  await mkdir(dir, { recursive: true });
  // Written by hand as version 1 laid it out: the header, then a message per line.
  const { messages, ...header } = v1;
  const head = JSON.stringify({ ...header, messages: [] }).slice(0, -2);
  await writeFile(join(dir, "snapshot.json"), `${head}\n${messages.map((m) => JSON.stringify(m)).join(",\n")}\n]}\n`);

  sim = await startSimulator({ script: [{ content: "still here" }] });
  // Written by an older hel, so unsigned: resumed as the user adopts it.
  const result = await runInProcess({ args: ["-C", project, "--resume", ID_A, "--trust", "and now?"], baseUrl: sim.url });
  expect(result.code).toBe(0);
  const body = sim.requests[0]!.body as ChatRequest;
  expect(JSON.stringify(body.messages.slice(1, -1))).toBe(JSON.stringify(messages.slice(1)));
  expect(body.messages.at(-1)).toEqual({ role: "user", content: "[#1] and now?" });

  const saved = JSON.parse(await readFile(join(dir, "snapshot.json"), "utf8"));
  expect(saved).toMatchObject({ schema_version: 2, stamps: 1, archive: [], compaction: { failures: 0, stopped: false } });
  expect(saved.messages.slice(1, 5)).toEqual(messages.slice(1));
});
