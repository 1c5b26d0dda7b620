// One hook run (hooks/run-hook.ts), a real process: what it prints comes back bounded, without escape
// sequences and with secrets masked, and its stdin holds the payload.
import { expect, it } from "vitest";
import { runHook } from "../../src/hooks/run-hook.js";
import { tempProject } from "../helpers/temp-project.js";

it("reads the payload on stdin; its output is cut at the bound, cleaned and masked, a secret cut in two included", async () => {
  const dir = await tempProject();
  const secret = "sk-secret-0123456789";
  const place = { projectDir: dir, env: { PATH: process.env.PATH }, secrets: [secret] };
  const echo = await runHook(`cat; printf '\\033[31m ${secret} done\\033[0m' >&2`, 5, { hook_event_name: "Stop" }, place, new AbortController().signal);
  expect(echo).toEqual({ exitCode: 0, timedOut: false, stdout: '{"hook_event_name":"Stop"}', stderr: "[REDACTED] done" });
  // The secret starts 4 characters before the bound.
  const long = await runHook(`head -c 7996 /dev/zero | tr '\\0' x; printf '${secret}'; exit 3`, 5, {}, place, new AbortController().signal);
  expect(long.exitCode).toBe(3);
  expect(long.stdout).toBe(`${"x".repeat(7996)}[REDACTED]… (cut at 8000 characters)`);
});
