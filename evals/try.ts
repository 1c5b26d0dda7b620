// `npm run try [-- [--fresh] <hel options and prompt>]`: hel to use by hand, offline, in one command.
// Starts the bundled simulator (the demo's model: it fixes the typo in src/greet.js when asked) and runs
// the real hel CLI on a copy of fixtures/demo, with the terminal as its stdin, stdout and stderr: the
// interactive prompt without arguments, one instruction with them. The copy stays in one temporary
// folder between runs, so `npm run try -- -c` continues the last session; `--fresh` starts again from a
// clean copy. hel's own resume hint names `npm run try --`, since the `hel` it would name is neither on
// PATH nor given a key. While DEEPSEEK_API_KEY is set, hel goes to DeepSeek instead.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HEL_BIN, PROJECT_ROOT } from "../scripts/hel-bin.js";
import { startSimulator } from "../sim/server.js";

const TRY = "npm run try --";

async function main(argv: string[]): Promise<number> {
  const fresh = argv.includes("--fresh");
  const helArgs = argv.filter((arg) => arg !== "--fresh");
  const project = join(tmpdir(), "hel-try");
  if (fresh) await rm(project, { recursive: true, force: true });
  const kept = existsSync(project);
  if (!kept) await cp(join(PROJECT_ROOT, "fixtures", "demo"), project, { recursive: true });
  const online = Boolean(process.env.DEEPSEEK_API_KEY);
  const sim = online ? null : await startSimulator({ policy: "demo" });
  const env = { ...process.env, HEL_RESUME_COMMAND: TRY, ...(sim ? { DEEPSEEK_API_KEY: "sim-try-key", HEL_BASE_URL: sim.url } : {}) };
  process.stderr.write(
    `hel, ${online ? "on DeepSeek (DEEPSEEK_API_KEY is set)" : "offline on the bundled simulator, which can fix the typo in src/greet.js"}, in ${project}` +
      `${kept ? ` (kept from an earlier run; ${TRY} --fresh starts from a clean copy)` : ""}\n` +
      `try: Fix the typo in the greeting in src/greet.js · continue later with: ${TRY} -c\n`,
  );
  const child = spawn(process.execPath, [HEL_BIN, "-C", project, ...helArgs], { env, stdio: "inherit" });
  // Ctrl-C reaches hel through the terminal; this process waits for hel to finish with it.
  const ignore = () => undefined;
  process.on("SIGINT", ignore);
  const code = await new Promise<number>((resolve) => child.on("close", (c, signal) => resolve(c ?? (signal ? 130 : 1))));
  process.off("SIGINT", ignore);
  await sim?.close();
  return code;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`try: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
