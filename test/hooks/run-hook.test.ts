// One hook run (hooks/run-hook.ts), a real process: what it prints comes back bounded, without escape
// sequences and with secrets masked, and its stdin holds the payload; no program the project planted
// runs in place of the one the user's hook names; nothing it started outlives it.
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runHook } from "../../src/hooks/run-hook.js";
import { running } from "../helpers/processes.js";
import { waitFor } from "../helpers/wait.js";
import { tempProject } from "../helpers/temp-project.js";

const signal = new AbortController().signal;
const placeOf = (projectDir: string, secrets: string[] = [], env: NodeJS.ProcessEnv = {}) => ({
  projectDir,
  env: { PATH: process.env.PATH, XDG_STATE_HOME: process.env.XDG_STATE_HOME, ...env },
  secrets,
});

it("reads the payload on stdin; its output is cut at the bound, cleaned and masked, a secret cut in two included", async () => {
  const dir = await tempProject();
  const secret = "sk-secret-0123456789";
  const place = placeOf(dir, [secret]);
  const echo = await runHook({ command: `cat; printf '\\033[31m ${secret} done\\033[0m' >&2`, timeout_s: 5 }, { hook_event_name: "Stop" }, place, signal);
  expect(echo).toEqual({ exitCode: 0, timedOut: false, stdout: '{"hook_event_name":"Stop"}', stderr: "[REDACTED] done" });
  // The secret starts 4 characters before the bound.
  const long = await runHook({ command: `head -c 7996 /dev/zero | tr '\\0' x; printf '${secret}'; exit 3`, timeout_s: 5 }, {}, place, signal);
  expect(long.exitCode).toBe(3);
  expect(long.stdout).toBe(`${"x".repeat(7996)}[REDACTED]… (cut at 8000 characters)`);
});

/** An executable at `path` in `dir` that writes the marker file when run. */
async function planted(dir: string, path: string, marker: string): Promise<void> {
  await mkdir(join(dir, path, ".."), { recursive: true });
  await writeFile(join(dir, path), `#!/bin/sh\necho planted >> ${JSON.stringify(marker)}\necho planted\n`);
  await chmod(join(dir, path), 0o755);
}

it("the user's hook runs outside the project: npx and PATH find nothing the project planted; a trusted project's hook runs in the project", async () => {
  const dir = await tempProject();
  const marker = join(await tempProject(), "marker");
  await planted(dir, "node_modules/.bin/prettier", marker);
  await planted(dir, "bin/prettier", marker);
  await planted(dir, "prettier", marker);
  // A PATH as many users have it: relative entries, an empty one, and a folder of the project.
  const place = placeOf(dir, [], { PATH: `node_modules/.bin::.:${join(dir, "bin")}:${process.env.PATH}`, npm_config_offline: "true" });
  const user = await runHook({ command: "pwd; echo $HEL_PROJECT_DIR; prettier --version; npx prettier --version", timeout_s: 30 }, {}, place, signal);
  await expect(readFile(marker, "utf8")).rejects.toThrow(/ENOENT/);
  const [cwd, named] = user.stdout.split("\n");
  expect(named).toBe(dir);
  expect(cwd).not.toBe(dir);
  expect(await readdir(cwd!)).toEqual([]);
  expect(user.stdout).not.toContain("planted");
  // A trusted project's hook (its programs hashed into the trust) runs in the project, PATH still clean.
  const project = await runHook({ command: "pwd; echo $PATH", timeout_s: 5, inProject: true }, {}, place, signal);
  const [projectCwd, path] = project.stdout.split("\n");
  expect(projectCwd).toBe(dir);
  expect(path!.split(":").every((entry) => entry.startsWith("/") && !entry.startsWith(dir))).toBe(true);
});

it("a setsid child ends with its hook: at the hook's exit and at its timeout", async () => {
  const dir = await tempProject();
  const out = await tempProject();
  for (const [name, rest, timeout] of [
    ["exit", "", 5],
    ["timeout", "; sleep 30", 1],
  ] as const) {
    const token = `31.0${Math.floor(Math.random() * 1e6)}`;
    const started = join(out, `${name}.started`);
    const command = `setsid sh -c 'touch ${started}; sleep ${token}; touch ${join(out, `${name}.marker`)}' & while [ ! -e ${started} ]; do sleep 0.01; done${rest}`;
    const run = await runHook({ command, timeout_s: timeout }, {}, placeOf(dir), signal);
    expect(run.timedOut).toBe(name === "timeout");
    // The kernel ends the namespace as its bubblewrap goes: a moment after, at most (the sleep is 31 s).
    await waitFor(
      () => running(`sleep ${token}`).length === 0,
      () => `the setsid child to end: ${running(`sleep ${token}`).join("; ")}`,
    );
  }
  expect((await readdir(out)).sort()).toEqual(["exit.started", "timeout.started"]);
});
