// The interactive mode in a real terminal: `script` gives hel a pseudo-terminal, and the test types
// into it as a person would — an instruction, Ctrl-C while the answer is pending, another
// instruction, Ctrl-D.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { compactionInstruction } from "../../src/agent/context/compaction.js";
import { foldInstruction } from "../../src/agent/context/fold.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { HEL, helEnv } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator;
let screenText = () => "";
afterEach(async () => sim?.close());

const until = (check: () => boolean, what: string): Promise<void> => waitFor(check, () => `${what}; screen so far:\n${screenText()}`);

/** hel in a pseudo-terminal: what it shows so far, and its exit status once it ends. */
function inTerminal(args: string) {
  const child = spawn("script", ["-qfec", `${process.execPath} ${HEL} ${args}`, "/dev/null"], { env: helEnv(sim.url), stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
  screenText = () => screen;
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, screen: () => screen, exited };
}

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
  expect(screen).toMatch(/resume with:\s+hel --resume [0-9a-f-]{36}/);

  // The aborted instruction stays in the conversation; every tool call has its result.
  const last = sim.requests.at(-1)!.body as ChatRequest;
  const roles = last.messages.map((m) => m.role);
  expect(roles).toEqual(["system", "user", "user", "assistant", "tool"]);
  expect(last.messages[1]).toEqual({ role: "user", content: "[#1] first question" });
  expect(last.messages[2]).toEqual({ role: "user", content: "[#2] list files" });
});

it("/compact [focus] compacts now, with the focus in the instruction; /fold #N asks the model to fold since #N", async () => {
  const project = await tempProject();
  // Two reads of a page each (about 15,000 tokens): more than the tail a compaction keeps.
  await writeFile(join(project, "big.txt"), Array.from({ length: 700 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`).join("\n"));
  const read = { tool_calls: [{ name: "read_file", arguments: '{"path":"big.txt"}' }] };
  sim = await startSimulator({ policy: "echo", script: [read, { content: "read once" }, read, { content: "read twice" }] });
  const child = spawn("script", ["-qfec", `${process.execPath} ${HEL} -C ${project} --tools read_file,fold --compact-at 0`, "/dev/null"], { env: helEnv(sim.url), stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  child.stdout.on("data", (d: Buffer) => (screen += d.toString()));
  screenText = () => screen;
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const prompts = () => screen.split("› ").length - 1;
  await until(() => prompts() === 1, "the prompt");
  child.stdin.write("read it\r");
  await until(() => prompts() === 2, "the first answer");
  child.stdin.write("read it again\r");
  await until(() => prompts() === 3, "the second answer");
  child.stdin.write("/compact keep the port\r");
  await until(() => screen.includes("⤓ compacted"), "the compaction");
  const summary = sim.requests.at(-1)!.body as ChatRequest;
  expect(summary.messages.at(-1)).toEqual({ role: "user", content: compactionInstruction("keep the port") });
  await until(() => prompts() === 4, "the prompt after /compact");
  child.stdin.write("/fold #2\r");
  await until(() => sim.requests.length === 6, "the fold request");
  expect((sim.requests[5]!.body as ChatRequest).messages.at(-1)).toEqual({ role: "user", content: `[#5] ${foldInstruction(2)}` });
  await until(() => screen.includes("echo: Fold the finished episode"), "the answer");
  child.stdin.write("\x04");
  expect(await exited).toBe(0);
});

it("/compact on a small conversation says there is nothing to compact yet; stamps are shown dim; /fold alone lists where a fold may begin", async () => {
  const project = await tempProject();
  await writeFile(join(project, "a.txt"), "alpha\n");
  sim = await startSimulator({ policy: "echo", script: [{ tool_calls: [{ name: "read_file", arguments: '{"path":"a.txt"}' }] }, { content: "read it" }] });
  const { child, screen, exited } = inTerminal(`-C ${project}`);
  await until(() => screen().includes("›"), "the prompt");
  child.stdin.write("/compact\r");
  await until(() => /nothing to compact yet: [\d,]+ tokens/.test(screen()), "the note that there is nothing to compact");
  expect(sim.requests).toHaveLength(0);
  child.stdin.write("read a.txt\r");
  await until(() => screen().includes("read it"), "the answer");
  expect(screen()).toContain("\x1b[2m  #2\x1b[22m");
  child.stdin.write("/fold\r");
  await until(() => screen().includes("fold since one of these with /fold #N:"), "the list of places to fold since");
  expect(screen()).toMatch(/ {2}#1 {2}instruction: read a\.txt \(~[\d,]+ tokens to now\)/);
  child.stdin.write("\x04");
  expect(await exited).toBe(0);
});
