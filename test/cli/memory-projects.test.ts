// Project facts never reach another project: one user, two projects, each run in this process as the
// command runs it (helpers/conversation.ts) against the simulator. The user's own facts go to both;
// each project's go only to its own requests. `auto` keeps what a fold offers; `off` reads and writes nothing.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { episode } from "../../sim/policies.js";
import { MemoryStore } from "../../src/memory/store.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { openTestConversation, runInProcess } from "../helpers/conversation.js";
import { simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

const startSim = simulators();

it("recalls the user's facts in both projects, and each project's only in its own", async () => {
  const s = await startSim();
  const home = await tempProject();
  const env = { XDG_CONFIG_HOME: join(home, "config"), XDG_STATE_HOME: join(home, "state") };
  const [one, two] = [await tempProject(), await tempProject()];
  const store = (dir: string) => new MemoryStore({ projectDir: dir, userDir: join(home, "config", "hel", "memory"), env, secrets: [] });
  await store(one).add("project", "deploys of project one go through the staging cluster first", "user");
  await store(two).add("project", "deploys of project two are frozen on Fridays", "user");
  await store(one).add("user", "deploys need the user's VPN up", "user");

  const asked = async (dir: string, ...flags: string[]) => {
    const run = await runInProcess({ args: ["-C", dir, ...flags, "how do deploys work here?"], baseUrl: s.url, env });
    expect(run.code, run.stderr).toBe(0);
    return String((s.requests.at(-1)!.body as ChatRequest).messages.at(-1)!.content);
  };
  const inOne = await asked(one);
  const inTwo = await asked(two);
  expect(inOne).toContain("- (project) deploys of project one go through the staging cluster first");
  expect(inOne).toContain("- (user) deploys need the user's VPN up");
  expect(inOne).not.toContain("project two");
  expect(inTwo).toContain("- (project) deploys of project two are frozen on Fridays");
  expect(inTwo).toContain("- (user) deploys need the user's VPN up");
  expect(inTwo).not.toContain("project one");
  expect(await asked(one, "--memory", "off")).toBe("[#1] how do deploys work here?");
});

it("does not recall a project's facts copied into another project", async () => {
  const s = await startSim();
  const home = await tempProject();
  const env = { XDG_CONFIG_HOME: join(home, "config"), XDG_STATE_HOME: join(home, "state") };
  const [one, two] = [await tempProject(), await tempProject()];
  const fact = await new MemoryStore({ projectDir: one, userDir: join(home, "u"), env, secrets: [] }).add("project", "deploys of project one go through staging", "user");
  const { cp } = await import("node:fs/promises");
  await cp(join(one, ".hel", "memory"), join(two, ".hel", "memory"), { recursive: true });
  const run = await runInProcess({ args: ["-C", two, "how do deploys work here?"], baseUrl: s.url, env });
  expect(run.code, run.stderr).toBe(0);
  expect(String((s.requests.at(-1)!.body as ChatRequest).messages.at(-1)!.content)).toBe("[#1] how do deploys work here?");
  const listed = await new MemoryStore({ projectDir: two, userDir: join(home, "u"), env, secrets: [] }).facts();
  expect(listed.map((l) => [l.fact.id, l.planted])).toEqual([[fact.id, true]]);
});

describe("the memory setting", () => {
  const foldingRun = async (mode: string) => {
    const s = await startSim({ policy: episode });
    const home = await tempProject();
    const env = { XDG_CONFIG_HOME: join(home, "config"), XDG_STATE_HOME: join(home, "state") };
    const dir = await tempProject();
    await writeFile(join(dir, "a.log"), "error TS2304: cannot find name 'x'\n");
    await writeFile(join(dir, "b.log"), "build passed after clearing the cache\n");
    const run = await runInProcess({ args: ["-C", dir, "--memory", mode, "--tools", "read_file,fold", "look at a.log and b.log"], baseUrl: s.url, env });
    expect(run.code, run.stderr).toBe(0);
    return { dir, store: new MemoryStore({ projectDir: dir, userDir: join(home, "config", "hel", "memory"), env, secrets: [] }) };
  };

  it("auto keeps a fold's learned and decided unasked, signed, so the next session recalls them", async () => {
    const { store } = await foldingRun("auto");
    expect(await store.pending()).toEqual([]);
    expect((await store.recallable()).map((f) => f.text)).toEqual(["read a.log, b.log; the build passes once the cache is cleared, and only with NODE_ENV unset", "keep the lockfile; rejected upgrading the compiler"]);
  });

  it("off reads and writes nothing", async () => {
    const { dir } = await foldingRun("off");
    expect(existsSync(join(dir, ".hel", "memory"))).toBe(false);
  });
});

it("an instruction sent again after a refused request keeps its one message, block and all", async () => {
  const s = await startSim({ script: [{ fault: { kind: "status", status: 400 } }, { content: "ok" }] });
  const home = await tempProject();
  const env = { XDG_CONFIG_HOME: join(home, "config"), XDG_STATE_HOME: join(home, "state") };
  const dir = await tempProject();
  await new MemoryStore({ projectDir: dir, userDir: join(home, "config", "hel", "memory"), env, secrets: [] }).add("project", "deploys go through staging first", "user");
  const open = await openTestConversation({ sim: s, args: ["-C", dir], env });
  try {
    expect((await open.instruct("how do deploys work?")).exitReason).toBe("error");
    expect((await open.instruct("how do deploys work?")).exitReason).toBe("completed");
    const messages = open.bodies().at(-1)!.messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(String(messages[1]!.content)).toMatch(/^\[#1\] how do deploys work\?\n\n\[memory\] .*\n- \(project\) deploys go through staging first$/s);
  } finally {
    await open.close();
  }
});
