#!/usr/bin/env node
// hel's entry point: parse the command line, run, and turn every failure into one line on stderr
// and the exit status of design §1. Stack traces only with HEL_DEBUG=1.
import module, { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import { hasExitCode } from "../errors.js";
import { ExitNow, parseArgs } from "./options.js";

// undici parses HTTP with llhttp compiled to WebAssembly; V8's optimizing tier recompiles it in the
// background for ~30 MB of memory, which buys nothing at hel's traffic (one streamed answer at a time).
// Must be set before any WebAssembly is compiled.
setFlagsFromString("--liftoff-only");

// Node 22.1+ can cache compiled code between runs, which most of hel's start-up time is; Node 20 has
// no such cache and skips this.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

async function main(): Promise<number> {
  const invocation = parseArgs(process.argv.slice(2), process.env, version);
  if (invocation.kind === "sessions") {
    const { runSessionsCommand } = await import("./sessions-command.js");
    return runSessionsCommand(invocation);
  }
  const { runHel } = await import("./run.js");
  return runHel(invocation.options);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ExitNow) {
      process.exitCode = error.exitCode;
      return;
    }
    if (process.env.HEL_DEBUG === "1") console.error(error);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`hel: ${message}\n`);
    process.exitCode = hasExitCode(error) ? error.exitCode : 1;
  },
);
