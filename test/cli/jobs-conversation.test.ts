// Background jobs in whole conversations in this process: PreToolUse hooks see job_output and job_kill
// calls (and may block them), what a job changes between turns is in the next turn's checkpoint,
// the terminal says when a job starts, and /jobs lists the jobs.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { slashCommands, type SlashContext } from "../../src/cli/slash-commands.js";
import { PLAIN } from "../../src/cli/term/kit/style.js";
import { openTestConversation } from "../helpers/conversation.js";
import { running } from "../helpers/processes.js";
import { simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

const sim = simulators();
const call = (name: string, args: object) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }] });
const TOOLS = ["--tools", "run_command,job_output,job_kill", "--effort", "none"];

it("PreToolUse hooks fire for job_output and job_kill, and a blocked job_kill leaves the job running until hel closes", async () => {
  const dir = await tempProject();
  const log = join(await tempProject(), "payloads.jsonl");
  const hook = join(await tempProject(), "hook.mjs");
  await writeFile(
    hook,
    `import { readFileSync, appendFileSync } from "node:fs";\nconst input = JSON.parse(readFileSync(0, "utf8"));\nappendFileSync(${JSON.stringify(log)}, JSON.stringify([input.tool_name, input.tool_input]) + "\\n");\nif (input.tool_name === "job_kill") { process.stderr.write("keep the server\\n"); process.exit(2); }\n`,
  );
  await mkdir(join(dir, ".hel"));
  await writeFile(join(dir, ".hel", "config.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "job_output|job_kill", command: `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}` }] } }));
  const s = await sim({ script: [call("run_command", { command: "echo up; sleep 3501", background: true }), call("job_output", { job: 1 }), call("job_kill", { job: 1 }), { content: "kept" }] });
  const hel = await openTestConversation({ sim: s, args: ["-C", dir, "--trust", ...TOOLS] });
  await hel.instruct("go");
  const results = hel
    .bodies()
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .map((m) => m.content);
  expect(results[2]).toBe("[#4] Blocked by a PreToolUse hook: keep the server");
  const payloads = (await readFile(log, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
  expect(payloads).toEqual([
    ["job_output", { job: 1 }],
    ["job_kill", { job: 1 }],
  ]);
  expect(running("sleep 3501")).not.toEqual([]);
  expect(hel.conversation.controls.jobs()).toEqual([{ job: 1, command: "echo up; sleep 3501", running: true, ended: null, log: expect.stringMatching(/^\.hel\/sessions\/[^/]+\/spill\//) }]);
  const said: string[] = [];
  const commands = slashCommands([]);
  const ctx: SlashContext = { controls: hel.conversation.controls, say: (lines) => void said.push(...lines), ask: async () => "", style: PLAIN, width: 80, exit: () => {}, switchTo: () => {}, send: () => {}, commands };
  await commands.find((c) => c.name === "jobs")!.run(ctx, "");
  expect(said).toEqual([`job 1 running: echo up; sleep 3501  ${hel.conversation.controls.jobs()[0]!.log}`]);
  expect(hel.stderr()).toContain("⧖ job 1 started: echo up; sleep 3501\n");
  await hel.close();
  expect(running("sleep 3501")).toEqual([]);
});

it("what a job changes between turns is in the next turn's checkpoint, though that turn only looks at the job", async () => {
  const dir = await tempProject();
  await writeFile(join(dir, "kept.txt"), "kept\n");
  // Outside the project: making it changes nothing the checkpoints hold.
  const go = join(await tempProject(), "go");
  const s = await sim({
    script: [
      call("run_command", { command: `until [ -f ${go} ]; do sleep 0.02; done; echo made > made.txt`, background: true }),
      { content: "started" },
      call("job_output", { job: 1, wait_s: 30 }),
      { content: "it ended" },
    ],
  });
  const hel = await openTestConversation({ sim: s, args: ["-C", dir, "--access", "full", ...TOOLS] });
  await hel.instruct("start");
  expect(existsSync(join(dir, "made.txt"))).toBe(false);
  await writeFile(go, "");
  await hel.instruct("wait for it");
  const result = hel.bodies().at(-1)!.messages.at(-1)!;
  expect(result.content).toMatch(/^\[#4\] job 1 exit code 0 · /);
  // Put back as it was before turn 2: the job's file was made by then, so it stays.
  await hel.conversation.controls.rewindFiles(2);
  expect(await readFile(join(dir, "made.txt"), "utf8")).toBe("made\n");
  await hel.close();
});
