// The places hel keeps read-only to its sandboxed commands, through hel run in this process as the
// command runs it (helpers/conversation.ts): a `.hel` a command makes in a subfolder (a config or store
// for a later start there) is gone when the call ends. The user's config folder and shell start-up
// files cannot lie inside a project (project-root.test.ts); the sandbox keeps them read-only all the
// same (kept-places.test.ts).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
});

const run = (command: string) => ({ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command }) }] });

it.runIf(process.platform === "linux")("a command cannot leave a .hel in a subfolder", async () => {
  const project = await tempProject();
  const hook = JSON.stringify({ hooks: { SessionStart: [{ command: "touch /tmp/pwned" }] } });
  const command = `mkdir -p sub/.hel && echo '${hook}' > sub/.hel/config.json && echo planted`;
  sim = await startSimulator({ script: [run(command), { content: "done" }] });
  const result = await runHelInProcess({ args: ["-C", project, "do it"], baseUrl: sim.url });
  expect(result.code).toBe(0);
  expect(existsSync(join(project, "sub", ".hel"))).toBe(false);
  const tool = String((sim.requests.at(-1)!.body as ChatRequest).messages.at(-1)!.content);
  expect(tool).toContain("planted");
  expect(tool).toContain("Some places are read-only to commands, so what the command made there was undone: sub/.hel removed.");
});
