// `npm run sim` (out/sim/main.js) as the README's no-key route: the line it prints, pasted into a shell
// in another project, runs the built hel on the simulator without a DeepSeek key.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { collect, HEL, helEnv, ROOT } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";
import { waitFor } from "../helpers/wait.js";

let sim: ChildProcess | undefined;
afterEach(() => void sim?.kill());

async function startSim(args: string[]): Promise<string> {
  sim = spawn(process.execPath, [join(ROOT, "out", "sim", "main.js"), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  sim.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  await waitFor(
    () => /\n {2}export .*\n/.test(stdout),
    () => `the export line, in ${JSON.stringify(stdout)}`,
  );
  return stdout;
}

it("prints the export line that points hel at it, which runs hel in any project without a key", async () => {
  const printed = await startSim(["--api-key", "only-this"]);
  const [listening, , exportLine] = printed.split("\n");
  const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(listening!)![1];
  expect(exportLine).toBe(`  export HEL_BASE_URL=${url} DEEPSEEK_API_KEY=only-this`);
  const project = await tempProject();
  const env = helEnv(undefined, { DEEPSEEK_API_KEY: undefined, HEL_BASE_URL: undefined });
  const run = await collect(spawn("sh", ["-c", `${exportLine!.trim()}\nexec "${process.execPath}" "${HEL}" "say hi"`], { cwd: project, env }));
  expect(run.stdout).toBe("echo: say hi\n");
  expect(run.stderr).toMatch(/^1 request · /);
  expect(run.code).toBe(0);
});

it("names a key of its own when any key is accepted", async () => {
  const printed = await startSim([]);
  expect(printed.split("\n")[2]).toMatch(/^ {2}export HEL_BASE_URL=http:\/\/127\.0\.0\.1:\d+ DEEPSEEK_API_KEY=sim-key$/);
});

it("--mode openai-compatible with --no-usage, --reasoning-field and --overflow answers as such a server does", async () => {
  const printed = await startSim(["--mode", "openai-compatible", "--no-usage", "--reasoning-field", "reasoning", "--overflow", "llama.cpp", "--context-window", "40"]);
  const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/m.exec(printed)![1]!;
  const post = (content: string) => fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "any", messages: [{ role: "user", content }] }) });
  const ok = await post("hi");
  expect(ok.status).toBe(200);
  const body = (await ok.json()) as { usage?: unknown; choices: { message: Record<string, unknown> }[] };
  expect(body).not.toHaveProperty("usage");
  expect(typeof body.choices[0]!.message["reasoning"]).toBe("string");
  const over = await post("word ".repeat(60));
  expect(over.status).toBe(400);
  expect(((await over.json()) as { error: { type: string; n_ctx: number } }).error).toMatchObject({ type: "exceed_context_size_error", n_ctx: 40 });
});
