// `npm run demo`: hel's main job, end to end, with nothing to set up. hel (the real CLI, as a child
// process) fixes a bug in a fresh copy of fixtures/demo; without DEEPSEEK_API_KEY the bundled
// simulator plays DeepSeek over real HTTP. Prints what hel did, its answer and the token figures.
import { spawn } from "node:child_process";
import { cp, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { HEL_BIN, PROJECT_ROOT } from "../scripts/hel-bin.js";
import { startSimulator } from "../sim/server.js";

const INSTRUCTION = "The greeting in src/greet.js has a typo. Fix it, then check the file.";

async function main(): Promise<void> {
  const project = await mkdtemp(join(tmpdir(), "hel-demo-"));
  await cp(join(PROJECT_ROOT, "fixtures", "demo"), project, { recursive: true });
  const before = await readFile(join(project, "src", "greet.js"), "utf8");

  const online = Boolean(process.env.DEEPSEEK_API_KEY);
  const sim = online ? null : await startSimulator({ policy: "demo" });
  const env = { ...process.env };
  if (sim) Object.assign(env, { DEEPSEEK_API_KEY: "sim-demo-key", HEL_BASE_URL: sim.url });
  process.stderr.write(`hel demo — ${online ? "DeepSeek (DEEPSEEK_API_KEY is set)" : `offline, on the bundled simulator at ${sim!.url}`}\n`);
  process.stderr.write(`project: ${project}\ninstruction: ${INSTRUCTION}\n\n`);

  const child = spawn(process.execPath, [HEL_BIN, "-C", project, "--json", INSTRUCTION], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  // hel's resume hint names a session on the simulator, which stops with the demo: offline it could
  // not be followed, so it is left out, and `npm run try` is offered instead.
  createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
    if (sim && /^session \S+ — resume with: /.test(line)) return;
    process.stderr.write(`${line}\n`);
  });
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  await sim?.close();

  const after = await readFile(join(project, "src", "greet.js"), "utf8");
  const result = stdout.trim() ? (JSON.parse(stdout.trim().split("\n").pop()!) as { answer: string; exit_reason: string; usage: Record<string, number> }) : null;
  process.stdout.write(`\n— what changed in src/greet.js —\n${diffLines(before, after) || "(nothing)"}\n`);
  if (result) {
    const u = result.usage;
    process.stdout.write(`\n— answer (${result.exit_reason}) —\n${result.answer}\n`);
    process.stdout.write(
      `\n— tokens —\nrequests ${u.requests} · input ${u.prompt_tokens} (cache hit ${u.prompt_cache_hit_tokens}, miss ${u.prompt_cache_miss_tokens}, ${Math.round((100 * (u.prompt_cache_hit_tokens ?? 0)) / Math.max(1, u.prompt_tokens ?? 0))}%) · output ${u.completion_tokens}\n`,
    );
  }
  if (sim) process.stdout.write("\nTo use hel yourself offline, on the same simulator: npm run try (on this demo) or npm run sim (in your own project)\n");
  process.exitCode = code;
}

function diffLines(before: string, after: string): string {
  const a = before.split("\n");
  const b = after.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) out.push(`${i + 1}: - ${a[i] ?? ""}`, `${i + 1}: + ${b[i] ?? ""}`);
  }
  return out.join("\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
