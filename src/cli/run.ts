// Runs hel's main job: checks the API key (none needed for a local openai-compatible server), chooses the input mode — a one-shot instruction, the
// interactive prompt on a terminal, or stdin's lines — lets it drive its conversation on the terminal
// (terminal-conversation.ts), and turns how that ended into the exit status. `hel mcp ls` is here
// too, since it opens a project as a run does.
import { HelError } from "../errors.js";
import { apiKeyFor, hostLabel } from "../model/host.js";
import { runInteractive } from "./modes/interactive.js";
import { runOneShot } from "./modes/one-shot.js";
import { runStdin } from "./modes/stdin.js";
import { oneShotInstruction } from "./one-shot-input.js";
import type { RunOptions } from "./options.js";
import type { Io } from "../conversation/project.js";
import { openProject } from "./open-project.js";
import type { Ended } from "./terminal-conversation.js";

export { runMcpList } from "./mcp-command.js";

export async function runHel(flags: RunOptions): Promise<number> {
  const apiKey = apiKeyFor(flags.provider, flags.baseUrl, process.env);
  if (apiKey === undefined) {
    if (flags.provider === "deepseek") throw new HelError("DEEPSEEK_API_KEY is not set — export your DeepSeek API key, or try hel without one: run `npm run sim` in a clone of hel and paste the export line it prints", 2);
    throw new HelError(`DEEPSEEK_API_KEY is not set — export the key ${hostLabel(flags.baseUrl)} expects as DEEPSEEK_API_KEY (a server on this machine needs none)`, 2);
  }
  const io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  // Read before anything else, so an empty instruction ends the run before it costs anything.
  const oneShot = flags.prompt.length > 0 ? await oneShotInstruction(flags.prompt, process.stdin) : null;
  let ended: Ended;
  if (oneShot !== null) ended = await runOneShot(await openProject(flags, apiKey, io, true), oneShot, io);
  else if (process.stdin.isTTY) {
    if (flags.jsonSchema !== null) throw new HelError('--json-schema shapes the answer a script reads: give the instruction (hel --json-schema <schema> "…") or pipe instructions in, not the interactive prompt', 2);
    if (flags.outputFormat !== "text")
      throw new HelError(`--output-format ${flags.outputFormat} is for scripts: give the instruction (hel --output-format ${flags.outputFormat} "…") or pipe instructions in, not the interactive prompt`, 2);
    ended = await runInteractive(flags, apiKey, io);
  } else ended = await runStdin(await openProject(flags, apiKey, io, true), io, process.stdin);
  return exitStatus(ended);
}

/** 130 after Ctrl-C (the conversation's last line said so); 0 when every turn completed and was saved (a turn not saved is work lost: 1). */
export function exitStatus(ended: Ended): number {
  if (ended.interrupted) return 130;
  return ended.worst === "completed" && !ended.lastSaveFailed ? 0 : 1;
}
