// hel's entry point (bundled; src/bin/hel.cts runs it): parse the command line, run, and turn every
// failure into one line on stderr and hel's exit status (0 done, 1 failed, 2 usage, 3 in use). Stack traces only with HEL_DEBUG=1.
import { createRequire } from "node:module";
import { hasExitCode } from "../errors.js";
import { ExitNow, parseArgs } from "./options.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

// A reader that goes away (`hel sessions show <id> | head`) is not an error: what it did not read is
// dropped and the run goes on, so a turn still ends and is saved. Without this, Node throws EPIPE
// from the write with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
  });
}

// A write past the file size limit (`ulimit -f`) raises SIGXFSZ, whose default is to end the process
// on the spot, with no message and a temporary file left beside the snapshot. With a listener the
// write fails with EFBIG instead, and the save reports it like a full disk.
process.on("SIGXFSZ", () => undefined);

async function main(): Promise<number> {
  const invocation = parseArgs(process.argv.slice(2), process.env, version);
  if (invocation.kind === "sessions" || invocation.kind === "rewind") {
    const { runSessionsCommand } = await import("./sessions-command.js");
    return runSessionsCommand(invocation, { version, env: process.env });
  }
  if (invocation.kind === "worktrees") {
    const { runWorktreesCommand } = await import("./worktrees-command.js");
    return runWorktreesCommand(invocation);
  }
  if (invocation.kind === "stats") {
    const { runStatsCommand } = await import("./stats-command.js");
    return runStatsCommand(invocation, { stdout: process.stdout, env: process.env });
  }
  if (invocation.kind === "web") {
    const { runWebCommand } = await import("./web-command.js");
    return runWebCommand(invocation, { stdout: process.stdout, env: process.env });
  }
  if (invocation.kind === "memory") {
    const { runMemoryCommand } = await import("./memory-command.js");
    return runMemoryCommand(invocation);
  }
  if (invocation.kind === "acp") {
    // Loaded only here: the protocol's SDK is no part of a terminal run.
    const { runAcp } = await import("./acp/agent.js");
    return runAcp(invocation.options, version);
  }
  if (invocation.kind === "config") {
    const { runConfigCommand } = await import("./config-command.js");
    return runConfigCommand(invocation.options, invocation.json, { stdout: process.stdout, stderr: process.stderr, env: process.env });
  }
  // `hel mcp ls` shares nearly all of a run's modules: it loads with them.
  const { runHel, runMcpList } = await import("./run.js");
  return invocation.kind === "mcp" ? runMcpList(invocation.options) : runHel(invocation.options);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    if (error instanceof ExitNow) {
      process.exitCode = error.exitCode;
      return;
    }
    if (process.env.HEL_DEBUG === "1") console.error(error);
    const message = error instanceof Error ? error.message : String(error);
    process.exitCode = hasExitCode(error) ? error.exitCode : 1;
    // Loaded only on the way out: `hel --version` and a run's start load no more than they need.
    const { errorText } = await import("./term/kit/style.js");
    process.stderr.write(`hel: ${errorText(message)}\n`);
  },
);
