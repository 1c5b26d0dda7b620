// The interactive mode in a real terminal: `script` gives hel a pseudo-terminal, and the test types
// into it as a person would — an instruction, Ctrl-C while the answer is pending, another
// instruction, Ctrl-D.
import { spawn } from "node:child_process";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../sim/index.js";
import type { ChatRequest } from "../src/wire/messages.js";
import { HEL, helEnv } from "./helpers/hel.js";
import { tempProject } from "./helpers/temp-project.js";
import { waitFor } from "./helpers/wait.js";

let sim: Simulator;
let screenText = () => "";
afterEach(async () => sim?.close());

const until = (check: () => boolean, what: string): Promise<void> => waitFor(check, () => `${what}; screen so far:\n${screenText()}`);

it("Ctrl-C aborts the request in flight, the conversation stays valid, Ctrl-D exits", async () => {
  sim = await startSimulator({
    policy: "echo",
    script: [{ faults: [{ kind: "delay", ms: 20_000 }], reply: { content: "too late" } }, { tool_calls: [{ name: "read_file", arguments: '{"path":"."}' }] }],
  });
  const project = await tempProject();
  const child = spawn("script", ["-qfec", `${process.execPath} ${HEL} -C ${project}`, "/dev/null"], { env: helEnv(sim.url), stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
  screenText = () => screen;
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));

  await until(() => screen.includes("›"), "the prompt");
  child.stdin.write("first question\r");
  await until(() => sim.requests.length === 1, "the first request");
  child.stdin.write("\x03");
  await until(() => screen.includes("interrupted"), "the interruption note");
  child.stdin.write("list files\r");
  await until(() => screen.includes("echo: list files"), "the second answer");
  expect(screen).toContain('→ read_file {"path":"."}');
  child.stdin.write("\x04");
  expect(await exited).toBe(0);
  expect(screen).toMatch(/resume with: hel --resume [0-9a-f-]{36}/);

  // The aborted instruction stays in the conversation; every tool call has its result.
  const last = sim.requests.at(-1)!.body as ChatRequest;
  const roles = last.messages.map((m) => m.role);
  expect(roles).toEqual(["system", "user", "user", "assistant", "tool"]);
  expect(last.messages[1]).toEqual({ role: "user", content: "[#1] first question" });
  expect(last.messages[2]).toEqual({ role: "user", content: "[#2] list files" });
});
