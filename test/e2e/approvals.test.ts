// Approvals in a real pseudo-terminal, as a person answers them: the model asks for a command the
// sandbox stopped to be given what it denied, hel shows that, the command and the reason and takes one
// key — y (once), a (always: the same command is given as much unasked next time), n (refused, not
// run) — pressed after the question is shown (what was typed ahead is not an answer), and a subagent's
// question names it. What was decided shows on the terminal line that ends each call and in --record.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { count, inTerminal } from "../helpers/terminal.js";
import { waitFor } from "../helpers/wait.js";

let sim: Simulator | undefined;
let outside: string | undefined;
afterEach(async () => {
  await sim?.close();
  if (outside) await rm(outside, { recursive: true, force: true });
});

const run = (command: string) => ({ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command }) }] });
const escalate = (command: string, justification: string) => ({ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command, escalate: true, justification }) }] });
const QUESTION = "[y] once · [a] always for this command in this session · [n] no";

it("asks with one key: y runs it once, a remembers the command for the session, n refuses; a subagent's question names it", async () => {
  // Outside the project and outside /tmp, which the sandbox replaces with a private one.
  outside = await mkdtemp("/var/tmp/hel-approvals-e2e-");
  const once = `touch ${join(outside, "once")}`;
  const always = `touch ${join(outside, "always")}`;
  const refused = `touch ${join(outside, "refused")}`;
  const child = `touch ${join(outside, "child")}`;
  sim = await startSimulator({
    script: [
      run(once),
      escalate(once, "the release notes live beside the project"),
      { content: "did once" },
      run(always),
      escalate(always, "it caches downloads there"),
      escalate(always, "again"),
      { content: "did always" },
      run(refused),
      escalate(refused, "it wants to"),
      { content: "did refused" },
      { tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: "touch the child marker" }) }] },
      run(child),
      escalate(child, "the task says so"),
      { content: "child done" },
      { content: "did child" },
    ],
  });
  const project = await tempProject();
  const record = join(project, "..", "record");
  // Wide enough that the lines ending each call are not cut to the width.
  const t = inTerminal(["-C", project, "--delegate", "task-only", "--record", record], sim.url, {}, 160);
  const instruct = async (text: string, done: string) => {
    await t.until((s) => count(s, "› ") >= 1, "the prompt");
    t.type(`${text}\r`);
    await t.until((s) => s.includes(done) || s.includes(QUESTION), `the question or ${done}`);
  };
  const answer = async (key: string, shown: number) => {
    await t.until((s) => count(s, QUESTION) === shown, `question ${shown}`);
    t.type(key);
  };

  await instruct("first", QUESTION);
  expect(t.screen()).toContain(`The model asks to give a command writes to ${outside}, in the sandbox otherwise:`);
  expect(t.screen()).toContain(`$ ${once}`);
  expect(t.screen()).toContain("why: the release notes live beside the project");
  await answer("y", 1);
  await t.until((s) => s.includes("did once"), "the first answer");
  expect(existsSync(join(outside, "once"))).toBe(true);
  expect(t.screen()).toMatch(/✓ exit code 0 · [\d.]+ s · given what the sandbox denied, approved once by the user/);

  await instruct("second", QUESTION);
  await answer("a", 2);
  await t.until((s) => s.includes("did always"), "the second answer");
  // The same command again was not asked about.
  expect(count(t.screen(), QUESTION)).toBe(2);
  expect(t.screen()).toContain("given what the sandbox denied, approved earlier in this session");

  await instruct("third", QUESTION);
  await answer("n", 3);
  await t.until((s) => s.includes("did refused"), "the third answer");
  expect(existsSync(join(outside, "refused"))).toBe(false);
  expect(t.screen()).toContain("✗ not run: you refused to give it what the sandbox denied");

  await instruct("fourth", QUESTION);
  await t.until((s) => s.includes(`subagent 1 (task-only) asks to give a command writes to ${outside}, in the sandbox otherwise:`), "the subagent's question");
  await answer("y", 4);
  await t.until((s) => s.includes("did child"), "the fourth answer");
  expect(existsSync(join(outside, "child"))).toBe(true);
  t.type("\x04");
  expect(await t.exited).toBe(0);

  // The model is offered escalation in the interactive prompt, and told what the user decided.
  const first = sim.requests[0]!.body as ChatRequest;
  const runCommand = first.tools!.find((tool) => tool.function.name === "run_command")!;
  expect(Object.keys((runCommand.function.parameters as { properties: object }).properties)).toEqual(["command", "timeout_s", "workdir", "background", "escalate", "justification"]);
  const results = sim.requests
    .map((r) => (r.body as ChatRequest).messages.at(-1)!)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));
  expect(results[1]).toMatch(new RegExp(`^\\[#\\d+\\] exit code 0 · [\\d.]+ s\\nIt ran in the sandbox, given writes to ${outside}: approved once by the user\\.`));
  expect(results[6]).toMatch(/^\[#\d+\] Error: the user refused to give this command writes to .*, so it was not run\./);

  const calls = JSON.parse(await readFile(join(record, "record.json"), "utf8")).tool_calls as { name: string; agent: string; approval?: unknown }[];
  expect(calls.map((c) => c.approval)).toEqual([
    undefined,
    { by: "once", justification: "the release notes live beside the project" },
    undefined,
    { by: "always", justification: "it caches downloads there" },
    { by: "remembered", justification: "again" },
    undefined,
    { by: "no", justification: "it wants to" },
    undefined,
    { by: "once", justification: "the task says so" },
    undefined,
  ]);
  expect(calls[8]).toMatchObject({ agent: "child", name: "run_command" });
});

it("a one-shot run in a terminal asks when --approval on-request says so, and --json-events says what was decided; piped, it cannot ask and says escalation is off", async () => {
  outside = await mkdtemp("/var/tmp/hel-approvals-e2e-");
  const marker = join(outside, "one-shot");
  sim = await startSimulator({ script: [run(`touch ${marker}`), escalate(`touch ${marker}`, "needs it"), { content: "done" }, { content: "piped done" }] });
  const project = await tempProject();
  const t = inTerminal(["-C", project, "--approval", "on-request", "--json-events", "do it"], sim.url);
  await t.until((s) => s.includes(QUESTION), "the question");
  t.type("y");
  expect(await t.exited).toBe(0);
  expect(existsSync(marker)).toBe(true);
  // The event stream carries the decision as typed details.
  const ends = t
    .bytes()
    .split(/\r?\n/)
    .filter((line) => line.startsWith('{"type":"tool_end"'))
    .map((line) => JSON.parse(line) as { details?: unknown });
  expect(ends.at(-1)!.details).toEqual(expect.objectContaining({ kind: "command", exit_code: 0, outside: { by: "once", justification: "needs it" } }));

  const piped = await runHel({ args: ["-C", project, "--approval", "on-request"], input: "hi\n", baseUrl: sim.url });
  expect(piped.code).toBe(0);
  expect(piped.stderr).toContain("hel: --approval on-request needs a terminal or an editor to ask you in — escalation is off in this run\n");
  const body = sim.requests.at(-1)!.body as ChatRequest;
  const runCommand = body.tools!.find((tool) => tool.function.name === "run_command")!;
  expect(Object.keys((runCommand.function.parameters as { properties: object }).properties)).toEqual(["command", "timeout_s", "workdir", "background"]);
});

/**
 * A model whose command waits until the test has typed ahead (the file `go` in the project), is then
 * stopped by the sandbox, and is escalated; `answer` is the model's last word.
 */
async function typedAheadRun(answer: string) {
  outside = await mkdtemp("/var/tmp/hel-approvals-e2e-");
  const marker = join(outside, "typed-ahead");
  const command = `until [ -e go ]; do sleep 0.05; done; touch ${marker}`;
  sim = await startSimulator({ script: [run(command), escalate(command, "needs it"), { content: answer }] });
  return { marker, project: await tempProject(), running: (s: string) => s.includes("until [ -e go ]") };
}

it("takes only a key pressed after the question is shown: what was typed ahead while the model worked is no answer", async () => {
  const { marker, project, running } = await typedAheadRun("done");
  const t = inTerminal(["-C", project, "--approval", "on-request", "do it"], sim!.url);
  await t.until(running, "the command running");
  // "say hi" holds an a, which would answer "always".
  t.type("say hi");
  // Echoed by the terminal, though the spinner's redraw may wipe it from the screen at once.
  await waitFor(() => t.bytes().includes("say hi"), "the typed-ahead text echoed");
  await writeFile(join(project, "go"), "");
  await t.until((s) => s.includes(QUESTION), "the question");
  t.type("n");
  await t.until((s) => s.includes(`${QUESTION} › n`), "the answer");
  expect(await t.exited).toBe(0);
  expect(existsSync(marker)).toBe(false);
  const results = sim!.requests
    .map((r) => (r.body as ChatRequest).messages.at(-1)!)
    .filter((m) => m.role === "tool")
    .map((m) => String(m.content));
  expect(results[1]).toMatch(/^\[#\d+\] Error: the user refused to give this command writes to /);
});

it("in the interactive prompt, keys typed while the model works go on the prompt's line and do not answer the question", async () => {
  const { marker, project, running } = await typedAheadRun("finished");
  const t = inTerminal(["-C", project], sim!.url, {}, 160);
  await t.until((s) => count(s, "› ") >= 1, "the prompt");
  t.type("do it\r");
  await t.until(running, "the command running");
  t.type("say hi");
  await writeFile(join(project, "go"), "");
  await t.until((s) => s.includes(QUESTION), "the question");
  t.type("n");
  await t.until((s) => s.includes("finished"), "the answer");
  expect(t.screen()).toContain(`${QUESTION} › n`);
  expect(existsSync(marker)).toBe(false);
  await t.until((s) => s.trimEnd().endsWith("› say hi"), "the typed-ahead text on the prompt's line");
  t.type("\x15\x04");
  expect(await t.exited).toBe(0);
});
