// A session whose archive/, children/ and spill/ directories were replaced by symbolic links to
// directories outside the project (a cloned repository can carry them, a command can plant them): hel,
// run in this process as the command runs it (helpers/conversation.ts), spills a long command output,
// delegates and folds, and writes nothing through the links; it says which directory it refused.
import { readdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type SimStep, type Simulator } from "../../sim/index.js";
import { lastUserText } from "../../sim/policies.js";
import { saveSnapshot } from "../../src/session/snapshot-file.js";
import type { ChatRequest, Message } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { makeSnapshot } from "../helpers/session-fixtures.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const content = (m: Message): string => (typeof m.content === "string" ? m.content : "");

/** "go": a command with long output, a delegation, a fold of the whole turn, an answer. */
function policy(req: ChatRequest): SimStep {
  if (lastUserText(req).startsWith("You are a subagent")) return { content: "child done" };
  const last = req.messages.at(-1)!;
  if (last.role === "user") return { tool_calls: [call("run_command", { command: "seq 1 20000", timeout_s: 60 })] };
  if (content(last).includes("handle: ")) return { content: "done" };
  if (content(last).includes("child done")) {
    const since = /^\[#(\d+)\] go$/m.exec(req.messages.map(content).join("\n"))![1];
    return { tool_calls: [call("fold", { since: `#${since}`, note: { changed: "nothing", learned: "counted", decided: "-", open: "-" } })] };
  }
  return { tool_calls: [call("delegate_task", { task: "Report done." })] };
}

it.each(["archive", "children", "spill"])("%s/ linked out of the project is not written through", { timeout: 60_000 }, async (name) => {
  sim = await startSimulator({ policy });
  const project = await tempProject();
  const outside = await tempProject();
  const id = "aaaa4444-4444-4444-8444-444444444444";
  await saveSnapshot(project, makeSnapshot(project, id));
  const link = join(project, ".hel", "sessions", id, name);
  await symlink(outside, link);
  const result = await runHelInProcess({ args: ["-C", project, "--resume", id, "--delegate", "task-only", "--tools", "run_command,fold", "--effort", "none", "go"], baseUrl: sim.url });
  // The run went through every step that writes into those directories: the fold is the last.
  expect(sim.requests.some((r) => content((r.body as ChatRequest).messages.at(-1)!).includes("handle: "))).toBe(true);
  expect(await readdir(outside)).toEqual([]);
  // Said to the user (a transcript or archive not saved) or to the model (a result not spilled).
  const told = `${link} is a symbolic link, which hel does not follow; remove it`;
  const toModel = sim.requests.some((r) => (r.body as ChatRequest).messages.some((m) => content(m).includes(told)));
  expect(result.stderr.includes(told) || toModel).toBe(true);
});
