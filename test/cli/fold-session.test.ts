// Fold end to end, hel run in this process as the command runs it (helpers/conversation.ts) against the
// simulator: the request after a fold is the prefix up to the span plus the note, the span is archived
// on disk before the snapshot names it, recall reads it back in the next run, and a resumed session
// sends byte for byte what a continuous one would.
import { createHash } from "node:crypto";
import { readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { Simulator } from "../../sim/index.js";
import { episode } from "../../sim/policies.js";
import type { Policy } from "../../sim/types.js";
import { childTask } from "../../src/agent/children/child-messages.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";
import { simulators, steadyIds, sessionIdOf } from "../helpers/simulators.js";

const startSim = simulators();
const sim = (policy: Policy) => startSim({ policy });

const TOOLS = ["--tools", "read_file,search_replace,fold,recall"];
const body = (s: Simulator, i: number) => s.requests[i]!.body as ChatRequest;

/** The episode policy with tool call ids that depend only on the conversation, so two runs send the same bytes. */
const steady = steadyIds(episode);

async function project(): Promise<string> {
  const dir = await tempProject();
  await writeFile(join(dir, "a.log"), "error TS2304: cannot find name 'x'\n");
  await writeFile(join(dir, "b.log"), "build passed after clearing the cache\n");
  return dir;
}

it("after a fold the request is the prefix up to the span's start plus the note; the span is archived on disk and indexed in the snapshot", async () => {
  const dir = await project();
  const s = await sim(steady);
  const run = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "look at a.log and b.log"], baseUrl: s.url });
  expect(run.code).toBe(0);
  expect(s.requests).toHaveLength(4);
  const beforeFold = body(s, 2);
  const afterFold = body(s, 3);
  // Request 2 carried [system, #1, read a, #2, read b, #3]; its answer was the fold call.
  const id = sessionIdOf(run.stderr)!;
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));
  const [entry] = snapshot.archive;
  expect(entry).toEqual({
    handle: expect.stringMatching(/^[0-9a-f]{4}$/),
    kind: "fold",
    first_stamp: 2,
    last_stamp: 3,
    note: "changed: nothing\nlearned: read a.log, b.log; the build passes once the cache is cleared, and only with NODE_ENV unset\ndecided: keep the lockfile; rejected upgrading the compiler\nopen: nothing",
    files: ["a.log", "b.log"],
    sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  const foldCall = afterFold.messages[2]!;
  expect(foldCall).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "fold" } }] });
  expect(JSON.stringify(afterFold.messages)).toBe(
    JSON.stringify([
      ...beforeFold.messages.slice(0, 2),
      foldCall,
      { role: "tool", tool_call_id: "call_6_0", content: `[#4] Folded #2–#3 into handle: ${entry.handle} (recall reads it back exactly; ask answers questions about it).\n${entry.note}\nfiles: a.log, b.log` },
    ]),
  );
  // Everything before the span is served from the cache.
  expect(s.requests[3]!.usage!.prompt_cache_hit_tokens).toBeGreaterThan(0);

  const archivedBytes = await readFile(join(dir, ".hel", "sessions", id, "archive", `${entry.handle}.json`));
  const archived = JSON.parse(archivedBytes.toString("utf8"));
  // The file is the span; the index adds the hash of its bytes.
  const { sha256, ...indexed } = entry;
  expect(archived).toMatchObject({ ...indexed, stamps: [2, 3] });
  expect(createHash("sha256").update(archivedBytes).digest("hex")).toBe(sha256);
  expect(JSON.stringify(archived.messages)).toBe(JSON.stringify(beforeFold.messages.slice(2)));
  expect(run.stderr).toMatch(new RegExp(`⤓ folded #2–#3 into ${entry.handle}: context ~[\\d,]+ → ~[\\d,]+ tokens`));
  // The snapshot holds the view, as the next request will send it.
  expect(snapshot.messages.slice(0, -1)).toEqual(afterFold.messages);
  expect(snapshot.messages.at(-1)).toMatchObject({ role: "assistant", content: "done: look at a.log and b.log" });
});

it("the first request after --resume of a folded session equals the one a continuous run sends, and recall reads the archive in the next run", async () => {
  const continuousDir = await project();
  const continuous = await sim(steady);
  const one = await runHelInProcess({ args: ["-C", continuousDir, ...TOOLS], input: "look at a.log and b.log\nwhat next?\n", baseUrl: continuous.url });
  expect(one.code).toBe(0);

  const dir = await project();
  const stopped = await sim(steady);
  const first = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "look at a.log and b.log"], baseUrl: stopped.url });
  const id = sessionIdOf(first.stderr)!;
  const second = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "--resume", id, "what next?"], baseUrl: stopped.url });
  expect(second.code).toBe(0);
  // The project directory is part of the system message; everything else is the same bytes.
  const same = (s: Simulator, d: string) => JSON.stringify(body(s, 4)).replaceAll(d, "<project>");
  expect(same(stopped, dir)).toBe(same(continuous, continuousDir));
  expect(body(stopped, 4).messages.at(-1)).toEqual({ role: "user", content: "[#5] what next?" });

  // recall, in a third run: the archived bytes, stamps, roles and tool calls, never a summary.
  const handle = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).archive[0].handle;
  const recalling = await sim(() => ({ tool_calls: [{ name: "recall", arguments: JSON.stringify({ handle }) }] }));
  recalling.push({ tool_calls: [{ name: "recall", arguments: JSON.stringify({ handle }) }] }, { content: "recalled" });
  await runHelInProcess({ args: ["-C", dir, ...TOOLS, "--resume", id, "what did a.log say?"], baseUrl: recalling.url });
  const recalled = body(recalling, 1).messages.at(-1)!.content!;
  expect(recalled).toBe(
    [
      `[#7] archive ${handle} (fold, #2–#3), 8 lines:`,
      "1\t── assistant",
      `2\t→ read_file {"path":"a.log"}`,
      "3\t── tool result (read_file)",
      "4\t[#2]      1\terror TS2304: cannot find name 'x'",
      "5\t── assistant",
      `6\t→ read_file {"path":"b.log"}`,
      "7\t── tool result (read_file)",
      "8\t[#3]      1\tbuild passed after clearing the cache",
    ].join("\n"),
  );
});

it("recall of a handle that does not exist, or of an archive deleted or corrupted by hand, says so; the session still resumes", async () => {
  const dir = await project();
  const s = await sim(steady);
  const first = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "look at a.log and b.log"], baseUrl: s.url });
  const id = sessionIdOf(first.stderr)!;
  const handle = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).archive[0].handle;
  const file = join(dir, ".hel", "sessions", id, "archive", `${handle}.json`);
  const recall = (args: object) => ({ tool_calls: [{ name: "recall", arguments: JSON.stringify(args) }] });
  const lastResult = async (args: object): Promise<string> => {
    const r = await sim(() => ({ content: "ok" }));
    r.push(recall(args), { content: "ok" });
    const run = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "--resume", id, "recall it"], baseUrl: r.url });
    expect(run.code).toBe(0);
    return body(r, 1)
      .messages.at(-1)!
      .content!.replace(/^\[#\d+\] /, "");
  };
  expect(await lastResult({ handle: "zzzz" })).toBe(`Error: cannot recall zzzz: no archived span has the handle "zzzz" (handles: ${handle}). The note in the conversation is all that is left of it.`);
  expect(await lastResult({ handle, query: "TS2304" })).toMatch(/1 matching line for "TS2304":\n2\t→ read_file[^]*4\t\[#2\] +1\terror TS2304/);
  // The span itself, moved out of the project and linked back: not followed.
  const outside = join(await tempProject(), "span.json");
  await rename(file, outside);
  await symlink(outside, file);
  expect(await lastResult({ handle })).toBe(`Error: cannot recall ${handle}: its archive file ${file} is a symbolic link, which hel does not follow. The note in the conversation is all that is left of it.`);
  await rm(file);
  await writeFile(file, "{ not json");
  // The index keeps the file's hash: a file changed by hand is told by it before it is parsed.
  expect(await lastResult({ handle })).toBe(
    `Error: cannot recall ${handle}: its archive file ${file} was changed outside hel (it no longer matches the SHA-256 the session keeps), so it cannot be served as the exact span. The note in the conversation is all that is left of it.`,
  );
  await rm(file);
  expect(await lastResult({ handle })).toBe(`Error: cannot recall ${handle}: its archive file ${file} is missing (deleted?). The note in the conversation is all that is left of it.`);
});

it("a read or edit of a file a folded span touched ends with a hint naming the handle and the note, once per file and handle per turn", async () => {
  const dir = await project();
  const s = await sim(steady);
  const first = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "look at a.log and b.log"], baseUrl: s.url });
  const id = sessionIdOf(first.stderr)!;
  const handle = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).archive[0].handle;
  const hint = `(archived span ${handle} also touched a.log: "changed: nothing" — recall {"handle":"${handle}"} reads it)`;
  const read = (path: string) => ({ tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path }) }] });
  const edit = { tool_calls: [{ name: "search_replace", arguments: JSON.stringify({ path: "a.log", old_text: "'x'", new_text: "'y'" }) }] };
  const r = await sim(() => ({ content: "ok" }));
  r.push(read("./a.log"), read("a.log"), { content: "read twice" }, edit, { content: "edited" });
  await runHelInProcess({ args: ["-C", dir, ...TOOLS, "--resume", id], input: "read a.log twice\nnow edit it\n", baseUrl: r.url });
  const results = (i: number) =>
    body(r, i)
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.content);
  expect(results(1).at(-1)).toBe(`[#6]      1\terror TS2304: cannot find name 'x'\n${hint}`);
  expect(results(2).at(-1)).toBe(`[#7]      1\terror TS2304: cannot find name 'x'`);
  // A new turn: the edit gets the hint again.
  expect(results(4).at(-1)).toMatch(new RegExp(`^\\[#9\\] [^]*\\n${hint.replace(/[()[\]{}.*+?^$|\\]/g, "\\$&")}$`));
});

it("a full child forks from the folded view: the notes, not the folded spans", async () => {
  const dir = await project();
  const s = await sim(steady);
  const first = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "look at a.log and b.log"], baseUrl: s.url });
  const id = sessionIdOf(first.stderr)!;
  const r = await sim(() => ({ content: "ok" }));
  r.push({ tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "check the build" }) }] }, { content: "child: fine" }, { content: "parent: done" });
  const run = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "--delegate", "full", "--resume", id, "delegate the check"], baseUrl: r.url });
  expect(run.code).toBe(0);
  const parent = body(r, 0);
  const child = body(r, 1);
  expect(child.messages.slice(0, -1)).toEqual(parent.messages);
  expect(child.messages.at(-1)!.content).toMatch(/^\[#6\] You are a subagent/);
  const text = JSON.stringify(child.messages);
  expect(text).toContain("Folded #2–#3 into handle:");
  expect(text).not.toContain("TS2304");
});

it("the terminal, --json, --record and `hel sessions show` say what was folded", async () => {
  const dir = await project();
  const s = await sim(steady);
  const record = join(dir, "..", `${dir.split("/").pop()}-record`);
  const run = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "--json", "--record", record, "look at a.log and b.log"], baseUrl: s.url });
  expect(run.code).toBe(0);
  const id = JSON.parse(run.stdout).session_id as string;
  const handle = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).archive[0].handle;
  const change = { agent: "parent", kind: "fold", handle, first_stamp: 2, last_stamp: 3, tokens_before: expect.any(Number), tokens_after: expect.any(Number), reason: null };
  expect(JSON.parse(run.stdout).context).toEqual([change]);
  expect(JSON.parse(await readFile(join(record, "record.json"), "utf8")).context).toEqual([change]);
  await rm(record, { recursive: true, force: true });

  const show = await runHelInProcess({ args: ["-C", dir, "sessions", "show", id] });
  expect(show.stdout).toContain(`\narchive  ${handle} fold #2–#3: changed: nothing\n`);
  expect(show.stdout).toContain(
    `── instruction 1 ──\n[#1] look at a.log and b.log\n\n── Folded #2–#3 into handle: ${handle} (recall reads it back exactly; ask answers questions about it). ──\nchanged: nothing\nlearned: read a.log, b.log;`,
  );
  expect(show.stdout).not.toContain("→ read_file");
});

it("ask runs a child over the conversation as it was before the fold, plus the question: its first request extends the parent's last request before the fold", async () => {
  const dir = await project();
  const tools = ["--tools", "read_file,search_replace,fold,recall,ask"];
  const s = await sim(steady);
  const first = await runHelInProcess({ args: ["-C", dir, ...tools, "look at a.log and b.log"], baseUrl: s.url });
  const id = sessionIdOf(first.stderr)!;
  const handle = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8")).archive[0].handle;
  const beforeFold = body(s, 2);

  const r = await sim(() => ({ content: "ok" }));
  r.push({ tool_calls: [{ name: "ask", arguments: JSON.stringify({ handle, question: "what exactly did a.log say?" }) }] }, { content: "cannot find name 'x'" }, { content: "answered" });
  const run = await runHelInProcess({ args: ["-C", dir, ...tools, "--resume", id, "ask about the build"], baseUrl: r.url });
  expect(run.code).toBe(0);
  const child = body(r, 1);
  expect(JSON.stringify({ ...child, messages: child.messages.slice(0, -1) })).toBe(JSON.stringify(beforeFold));
  expect(child.messages.at(-1)!.content).toBe(`[#6] ${childTask("what exactly did a.log say?")}`);
  expect(body(r, 2).messages.at(-1)).toEqual({ role: "tool", tool_call_id: expect.any(String), content: "[#7] cannot find name 'x'" });
  const transcript = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "children", "1.json"), "utf8"));
  expect(transcript).toMatchObject({ number: 1, kind: "ask", mode: null, task: "what exactly did a.log say?", answer: "cannot find name 'x'" });
});

it("a note field over 4,000 characters is refused with an error result, so later requests do not carry it twice", async () => {
  const dir = await project();
  const long = `${"learned ".repeat(625)}and more`;
  const s = await startSim({
    script: [
      { tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.log" }) }] },
      { tool_calls: [{ name: "fold", arguments: JSON.stringify({ since: "#2", note: { changed: "nothing", learned: long, decided: "-", open: "nothing" } }) }] },
      { content: "done" },
    ],
  });
  const run = await runHelInProcess({ args: ["-C", dir, ...TOOLS, "look at a.log"], baseUrl: s.url });
  expect(run.code).toBe(0);
  const last = body(s, 2).messages.at(-1)!;
  expect(last).toMatchObject({ role: "tool" });
  expect(last.content).toMatch(/^\[#3\] Error: the note is too long: learned has 5,008 characters, and each field may hold at most 4,000\./);
  // The call's arguments stay in the view, but no note was made of them.
  expect(JSON.stringify(body(s, 2)).split(long.slice(0, 4000))).toHaveLength(2);
});
