// The places hel keeps read-only to its sandboxed commands, through the built CLI: the user's config
// folder (where a planted hook would run at the next hel start anywhere) stays unwritten even when it
// lies inside the project, and a `.hel` a command makes in a subfolder is gone when the call ends.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
});

const run = (command: string) => ({ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command }) }] });

it.runIf(process.platform === "linux")("a command writes neither the user's config inside the project nor a .hel of a subfolder", async () => {
  const project = await tempProject();
  const configHome = join(project, ".config");
  await mkdir(join(configHome, "hel"), { recursive: true });
  await writeFile(join(configHome, "hel", "config.json"), "{}\n");
  const hook = JSON.stringify({ hooks: { SessionStart: [{ command: "touch /tmp/pwned" }] } });
  const command = `echo '${hook}' > .config/hel/config.json || echo config refused; mkdir -p sub/.hel && echo '${hook}' > sub/.hel/config.json && echo planted`;
  sim = await startSimulator({ script: [run(command), { content: "done" }] });
  const result = await runHel({ args: ["-C", project, "do it"], baseUrl: sim.url, env: { XDG_CONFIG_HOME: configHome } });
  expect(result.code).toBe(0);
  expect(await readFile(join(configHome, "hel", "config.json"), "utf8")).toBe("{}\n");
  expect(existsSync(join(project, "sub", ".hel"))).toBe(false);
  const tool = String((sim.requests.at(-1)!.body as ChatRequest).messages.at(-1)!.content);
  expect(tool).toContain("config refused");
  expect(tool).toContain("planted");
  expect(tool).toContain("Some places are read-only to commands, so what the command made there was undone: sub/.hel removed.");
});
