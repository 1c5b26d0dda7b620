// `npm run try` (out/evals/try.js) as a newcomer meets it: hel on a kept copy of the demo, `--fresh` for
// a clean one, and hints that work as printed (the resume hint names `npm run try --`, the script
// package.json defines, not a `hel` that is not on PATH).
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { collect, helEnv, ROOT, type HelResult } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

const FIX = "Fix the typo in the greeting in src/greet.js";

function runTry(tmp: string, args: string[]): Promise<HelResult> {
  const env = helEnv(undefined, { DEEPSEEK_API_KEY: undefined, HEL_BASE_URL: undefined, TMPDIR: tmp });
  return collect(spawn(process.execPath, [join(ROOT, "out", "evals", "try.js"), ...args], { cwd: ROOT, env }));
}

it("keeps its copy between runs, starts from a clean one with --fresh, and hints with commands that work", async () => {
  const tmp = await tempProject();
  const greet = join(tmp, "hel-try", "src", "greet.js");
  const script = (JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.try;
  expect(script).toMatch(/&& node out\/evals\/try\.js$/);

  const first = await runTry(tmp, ["--fresh", FIX]);
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('the greeting now says "Hello"');
  expect(first.stderr).toContain("continue later with: npm run try -- -c\n");
  const id = /resume with: npm run try -- --resume (\S+)\n/.exec(first.stderr)?.[1];
  expect(id).toBeDefined();
  expect(await readFile(greet, "utf8")).toContain("Hello, ${name}");

  // The hint's arguments, as `npm run try --` hands them on, continue that session on the kept copy.
  const resumed = await runTry(tmp, ["--resume", id!, FIX]);
  expect(resumed.code).toBe(0);
  expect(resumed.stderr).toContain("kept from an earlier run; npm run try -- --fresh starts from a clean copy");
  expect(resumed.stdout).toContain('already says "Hello"');
  expect(resumed.stderr).toContain(`resume with: npm run try -- --resume ${id}\n`);

  const fresh = await runTry(tmp, ["--fresh", FIX]);
  expect(fresh.stderr).not.toContain("kept from an earlier run");
  expect(fresh.stdout).toContain('the greeting now says "Hello"');
});
