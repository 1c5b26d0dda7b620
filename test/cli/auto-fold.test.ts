// Auto-fold end to end, hel run in this process as the command runs it (helpers/conversation.ts)
// against the simulator, with the default tools: the build loop (three failing builds with long logs,
// then a passing one) is folded without a fold call from the model, by one note request that extends
// the last request; the span is archived and marked automatic; a resumed session sends what a
// continuous one does; --auto-fold off and the config key turn it off; a bad note is asked for once
// more, then the episode stays. A kill -9 while the note is asked for is test/e2e/auto-fold.test.ts's.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import type { Policy } from "../../sim/types.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { simulators, sessionIdOf } from "../helpers/simulators.js";
import { ARGS, bodies, buildLoopProject, isNoteRequest, passingBuild, steady } from "../helpers/build-loop-runs.js";

const startSim = simulators();
const sim = (policy: Policy = steady) => startSim({ policy });
const project = buildLoopProject;

const FOLDED = /^\[folded ([0-9a-f]{4,12})\] hel folded a finished episode \(#2–#8\): `sh build\.sh` failed 3 times, then passed\./;

it("the build loop is folded without a fold call: one note request that extends the last request, then [folded <handle>] in place of the episode, archived as automatic", async () => {
  const dir = await project();
  const s = await sim();
  const run = await runHelInProcess({ args: ["-C", dir, ...ARGS, "--json"], input: "make the build pass\nstep 1\n", baseUrl: s.url });
  expect(run.code).toBe(0);
  const all = bodies(s);
  expect(all.flatMap((b) => b.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.function.name) : [])))).not.toContain("fold");
  const note = all.findIndex(isNoteRequest);
  expect(all.filter(isNoteRequest)).toHaveLength(1);
  const before = all[note - 1]!;
  const asked = all[note]!;
  // The conversation exactly as the last request sent it, then the passing build's call and result, then Fold:.
  expect(JSON.stringify(asked.messages.slice(0, before.messages.length))).toBe(JSON.stringify(before.messages));
  expect(asked.messages.slice(before.messages.length).map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
  expect({ ...asked, messages: undefined }).toEqual({ ...before, messages: undefined });
  expect(s.requests[note]!.usage!.prompt_cache_hit_tokens).toBeGreaterThanOrEqual(s.requests[note - 1]!.usage!.prompt_tokens - 64);

  const after = all[note + 1]!;
  const folded = after.messages.at(-1)!;
  expect(folded.role).toBe("user");
  const handle = FOLDED.exec(String(folded.content))?.[1];
  expect(handle).toBeDefined();
  // The prefix up to the episode's start is what was sent before: the instruction, then the note.
  expect(JSON.stringify(after.messages.slice(0, -1))).toBe(JSON.stringify(asked.messages.slice(0, 2)));
  expect(String(folded.content)).toContain("learned: sh build.sh passes now. note: the linker must run with LC_ALL=C, or the symbol order changes");
  expect(String(folded.content)).toMatch(/\nfiles: build\.cfg$/);
  expect(run.stdout.split("\n")[0]).toContain('"answer":"The build passes now."');

  const id = sessionIdOf(run.stderr)!;
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "snapshot.json"), "utf8"));
  expect(snapshot.archive).toEqual([expect.objectContaining({ handle, kind: "fold", auto: true, first_stamp: 2, last_stamp: 8, files: ["build.cfg"] })]);
  const archived = JSON.parse(await readFile(join(dir, ".hel", "sessions", id, "archive", `${handle}.json`), "utf8"));
  expect(JSON.stringify(archived.messages)).toBe(JSON.stringify(asked.messages.slice(2, -1)));
  expect(run.stderr).toMatch(new RegExp(`⤓ auto-folded #2–#8 into ${handle}`));
  const shown = await runHelInProcess({ args: ["-C", dir, "sessions", "show", id] });
  expect(shown.stdout).toContain(`archive  ${handle} fold (auto) #2–#8: changed: build.cfg`);
});

it("the first request after --resume of an auto-folded session equals the one a continuous run sends", async () => {
  const continuousDir = await project();
  const continuous = await sim();
  expect((await runHelInProcess({ args: ["-C", continuousDir, ...ARGS], input: "make the build pass\nstep 1\n", baseUrl: continuous.url })).code).toBe(0);
  const dir = await project();
  const stopped = await sim();
  const first = await runHelInProcess({ args: ["-C", dir, ...ARGS, "make the build pass"], baseUrl: stopped.url });
  const second = await runHelInProcess({ args: ["-C", dir, ...ARGS, "--resume", sessionIdOf(first.stderr)!, "step 1"], baseUrl: stopped.url });
  expect(second.code).toBe(0);
  const at = bodies(stopped).findIndex((b) => lastUserText(b) === "step 1");
  expect(at).toBeGreaterThan(0);
  // The handle hashes the span, whose results carry the commands' timings; all else is the same.
  const same = (s: Simulator, d: string) => {
    const text = JSON.stringify(bodies(s)[at]);
    return text.replaceAll(d, "<project>").replaceAll(FOLDED.exec(String(bodies(s)[at]!.messages[2]!.content))![1]!, "<handle>");
  };
  expect(String(bodies(stopped)[at]!.messages[2]!.content)).toMatch(FOLDED);
  expect(same(stopped, dir)).toBe(same(continuous, continuousDir));
});

it("--auto-fold off and the config key auto-fold turn it off: no note request, the episode stays", async () => {
  for (const setting of ["flag", "config"] as const) {
    const dir = await project();
    const s = await sim();
    if (setting === "config") {
      await mkdir(join(dir, ".hel"), { recursive: true });
      await writeFile(join(dir, ".hel", "config.json"), JSON.stringify({ "auto-fold": "off" }));
    }
    const run = await runHelInProcess({ args: ["-C", dir, ...ARGS, ...(setting === "flag" ? ["--auto-fold", "off"] : []), "make the build pass"], baseUrl: s.url });
    expect(run.code).toBe(0);
    expect(bodies(s).some(isNoteRequest)).toBe(false);
    expect(
      bodies(s)
        .at(-1)!
        .messages.filter((m) => m.role === "tool"),
    ).toHaveLength(7);
  }
});

it("a note that does not parse is asked for once more, then the episode stays in place", async () => {
  const dir = await project();
  // The simulator answers Fold: itself; the two requests after the passing build get the scripted answers.
  let s: Simulator | null = null;
  const s0 = await sim((req, ctx) => {
    if (passingBuild(req)) s!.push({ content: "The build passes now, I think." }, { content: "The build passes now, I think." });
    return steady(req, ctx);
  });
  s = s0;
  const run = await runHelInProcess({ args: ["-C", dir, ...ARGS, "make the build pass"], baseUrl: s.url });
  expect(run.code).toBe(0);
  const notes = bodies(s).filter(isNoteRequest);
  expect(notes).toHaveLength(2);
  expect(notes[1]!.messages.slice(-2)).toEqual([
    { role: "assistant", content: "The build passes now, I think." },
    { role: "user", content: "Fold: that was not the note (no JSON object). Answer only with the JSON object, its four fields strings." },
  ]);
  const last = bodies(s).at(-1)!;
  expect(last.messages.some((m) => m.role === "user" && String(m.content).startsWith("[folded "))).toBe(false);
  expect(last.messages.filter((m) => m.role === "tool")).toHaveLength(7);
  const snapshot = JSON.parse(await readFile(join(dir, ".hel", "sessions", sessionIdOf(run.stderr)!, "snapshot.json"), "utf8"));
  expect(snapshot.archive).toEqual([]);
});
