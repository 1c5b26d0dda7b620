// hel's command line (its flags are a contract: scripts and evals use them), parsed with commander and checked with zod into RunOptions.
// These flag names are a contract with scripts and evals: add to them, never rename them.
import { Command, Option } from "commander";
import { resolve } from "node:path";
import { HelError } from "../errors.js";
import { addSettingFlags, flagOrigins, flagValues } from "../settings/flags.js";
import { envHelp, settingsHelp } from "../settings/help.js";
import { type RunOptions, RunOptionsSchema } from "../settings/run-options.js";
import { SETTINGS } from "../settings/table.js";
import { EXPORT_FORMATS, type ExportFormat } from "../view/format-names.js";

export type { RunOptions };

export type Invocation =
  | { kind: "run"; options: RunOptions }
  /** `hel [flags] acp`: an editor drives hel over the Agent Client Protocol; the flags before it set up every session. */
  | { kind: "acp"; options: RunOptions }
  | { kind: "sessions"; action: "ls" | "show" | "rm" | "fork" | "export"; ids: string[]; json: boolean; cwd: string; at?: number; force?: boolean; format?: ExportFormat; output?: string }
  | { kind: "worktrees"; action: "ls" | "merge" | "rm"; name: string; json: boolean; force: boolean; cwd: string }
  | { kind: "rewind"; id: string | null; to: number | "rewind"; files: boolean; conversation: boolean; cwd: string }
  | { kind: "mcp"; options: RunOptions }
  /** `hel memory <action>`: the facts kept across sessions (design §19); `args`: the id and, for add and edit, the text. */
  | { kind: "memory"; action: MemoryAction; args: string[]; user: boolean; json: boolean; cwd: string }
  /** `hel [flags] config [--json]`: the settings a run here would have, and where each came from. */
  | { kind: "config"; options: RunOptions; json: boolean }
  /** `hel stats`: this project's requests, tokens and dollars by day and model; `days` null: every recorded day. */
  | { kind: "stats"; days: number | null; json: boolean; cwd: string }
  /** `hel web`: the read-only viewer of this project's sessions; `port` 0: any free port. */
  | { kind: "web"; port: number; cwd: string };

const MEMORY_ACTIONS = ["ls", "show", "add", "rm", "edit", "review"] as const;
type MemoryAction = (typeof MEMORY_ACTIONS)[number];

/** A turn number as --at and --to take it. */
function turnNumber(flag: string, text: string, least: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < least) throw new HelError(`${flag} takes a turn number${least > 0 ? " from 1" : ""}, not ${JSON.stringify(text)} — see hel sessions show for the turns`, 2);
  return n;
}

function dayCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new HelError(`--days takes a number of days from 1, not ${JSON.stringify(text)} — see hel stats --help`, 2);
  return n;
}

function portNumber(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw new HelError(`--port takes a port number from 1 to 65535, not ${JSON.stringify(text)} — or leave it out for a free one`, 2);
  return n;
}

/** Parses argv (without node and script). Throws HelError(exit 2) on bad usage; help/version print and exit 0. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv, version: string): Invocation {
  let invocation: Invocation | undefined;
  const program = new Command("hel")
    .description("A coding agent for DeepSeek: runs an instruction to its final answer, in sessions you can resume.")
    .version(version, "-v, --version")
    // Options after `sessions ls` belong to it: `hel sessions ls --json` is the subcommand's --json.
    .enablePositionalOptions()
    .argument("[prompt...]", "the instruction; without one, instructions are read from stdin, one per line");
  addSettingFlags(program, SETTINGS, env)
    .addHelpText(
      "after",
      `
Environment:
  DEEPSEEK_API_KEY   your DeepSeek API key, or the key of the host at --base-url (not needed for a server on this machine with --provider openai-compatible; never written to disk)
${envHelp(SETTINGS)}
  HEL_PRICES         a JSON price table replacing the built-in one (for the cost estimates)
  HEL_DEBUG=1        show stack traces
  NO_COLOR           no colours in the terminal

${settingsHelp(SETTINGS)}

MCP servers: their tools are offered as mcp__<server>__<tool> after hel's own; hel mcp ls lists them.

Named agents: .hel/agents/<name>.md and agents/<name>.md beside config.json, front matter description
  (required), mode, tools, model, max-steps, access, then the agent's instructions; delegate_task
  {task, agent} hands a task to one (offered with agents present, task-only without --delegate). They
  only narrow a child, so they need no trust.

Skills and commands: a folder .hel/skills/<name>/ or .agents/skills/<name>/ (or skills/<name>/ beside
  config.json) with a SKILL.md whose front matter has name and description is listed in the system prompt
  and read by the model when it fits; .hel/commands/<name>.md (or commands/<name>.md beside config.json)
  is the prompt's /<name> <args>, sending the file's text with $ARGUMENTS replaced.

Exit reasons (--json exit_reason): completed, max_steps, length (a call cut off twice at the output
  limit: raise --max-output-tokens), error, aborted, empty (the model answered nothing, twice), budget
  (--max-cost reached).

Exit status: 0 done, 1 the work failed, 2 usage error, 3 session in use by another hel process, 130 interrupted.`,
    )
    .action((prompt: string[], opts: Record<string, unknown>) => {
      invocation = { kind: "run", options: validate(prompt, opts, flagOrigins(program, SETTINGS, env)) };
    });

  const sessions = program
    .command("sessions")
    // The top-level help lists commands by name only: their arguments are said here.
    .description(
      "list, show and delete this project's sessions: sessions ls [--json], sessions show <id> [--json], sessions rm <ids...>, sessions fork <id> [--at <turn>], sessions export <id> [--format html|md|json|atif] [-o file]",
    );
  const sessionCommand = (action: "ls" | "show" | "rm" | "fork" | "export") => (ids: string[] | string | undefined, opts: { json?: boolean; at?: string; force?: boolean; format?: ExportFormat; output?: string }) => {
    invocation = {
      kind: "sessions",
      action,
      ids: ids === undefined ? [] : Array.isArray(ids) ? ids : [ids],
      json: Boolean(opts.json),
      cwd: resolve(String(program.opts().cwd ?? ".")),
      ...(opts.at !== undefined ? { at: turnNumber("--at", opts.at, 0) } : {}),
      ...(opts.force ? { force: true } : {}),
      ...(opts.format !== undefined ? { format: opts.format } : {}),
      ...(opts.output !== undefined ? { output: resolve(opts.output) } : {}),
    };
  };
  sessions
    .command("ls", { isDefault: true })
    .description("sessions of this project, newest first (the default)")
    .option("--json", "as JSON")
    .action((opts) => sessionCommand("ls")(undefined, opts));
  sessions
    .command("show")
    .description("a session's transcript")
    .argument("<id>")
    .option("--json", "as JSON")
    .action((id, opts) => sessionCommand("show")(id, opts));
  sessions
    .command("rm")
    .description("delete sessions and their worktrees (refused while in use, or with worktree changes not merged unless --force)")
    .argument("<ids...>")
    .option("--force", "remove their worktrees' unmerged changes too")
    .action((ids, opts) => sessionCommand("rm")(ids, opts));
  sessions
    .command("fork")
    .description("a new session whose conversation is the first turns of another, byte for byte")
    .argument("<id>")
    .option("--at <turn>", "keep turns 1 to this one (default: all)")
    .action((id, opts) => sessionCommand("fork")(id, opts));
  sessions
    .command("export")
    .description("a session as one file: a self-contained page (html, the default), Markdown, its data as JSON, or an ATIF trajectory")
    .argument("<id>")
    .addOption(new Option("--format <format>", "html, md, json or atif").choices(EXPORT_FORMATS).default("html"))
    .option("-o, --output <file>", "write it to this file (default: stdout)")
    .action((id, opts) => sessionCommand("export")(id, opts));
  const worktrees = program.command("worktrees").description("the worktrees hel keeps for isolated children and `hel -w` sessions: worktrees ls [--json], worktrees merge <name>, worktrees rm <name> [--force]");
  const worktreeCommand = (action: "ls" | "merge" | "rm") => (name: string | undefined, opts: { json?: boolean; force?: boolean }) => {
    invocation = { kind: "worktrees", action, name: name ?? "", json: Boolean(opts.json), force: Boolean(opts.force), cwd: resolve(String(program.opts().cwd ?? ".")) };
  };
  worktrees
    .command("ls", { isDefault: true })
    .description("the kept worktrees, what each changed and why it is kept (the default)")
    .option("--json", "as JSON")
    .action((opts) => worktreeCommand("ls")(undefined, opts));
  worktrees
    .command("merge")
    .description("bring a worktree's changes into the project; a conflict is written with git-style markers to resolve")
    .argument("<name>")
    .action((name) => worktreeCommand("merge")(name, {}));
  worktrees
    .command("rm")
    .description("remove a worktree and its branch (refused with unmerged changes unless --force)")
    .argument("<name>")
    .option("--force", "discard its unmerged changes")
    .action((name, opts) => worktreeCommand("rm")(name, opts));
  program
    .command("acp")
    .description("serve an editor over the Agent Client Protocol on stdin/stdout (Zed's agent_servers and others); flags go before it: hel --model <name> acp")
    .action(() => {
      const options = validate([], program.opts(), flagOrigins(program, SETTINGS, env));
      if (options.json || options.jsonEvents) throw new HelError("hel acp keeps stdout for the protocol, so --json and --json-events cannot be used with it — leave them out", 2);
      if (options.outputFormat !== "text") throw new HelError(`hel acp keeps stdout for the protocol, so --output-format ${options.outputFormat} cannot be used with it — leave it out`, 2);
      if (options.jsonSchema !== null) throw new HelError("hel acp answers the editor in prose, so --json-schema cannot be used with it — leave it out", 2);
      invocation = { kind: "acp", options };
    });
  program
    .command("rewind")
    .description("put the project's files and the conversation back to before a turn (both unless one is named)")
    .argument("[id]", "the session (default: the most recent one)")
    .requiredOption("--to <turn>", 'before this turn; "rewind" undoes the latest rewind')
    .option("--files", "only the files")
    .option("--conversation", "only the conversation")
    .action((id: string | undefined, opts: { to: string; files?: boolean; conversation?: boolean }) => {
      const both = !opts.files && !opts.conversation;
      invocation = {
        kind: "rewind",
        id: id ?? null,
        to: opts.to === "rewind" ? "rewind" : turnNumber("--to", opts.to, 1),
        files: both || Boolean(opts.files),
        conversation: both || Boolean(opts.conversation),
        cwd: resolve(String(program.opts().cwd ?? ".")),
      };
    });

  const mcp = program.command("mcp").description("the MCP servers hel would start here");
  mcp
    .command("ls", { isDefault: true })
    .description("the servers, their tools and what each tool's definition costs in every request (the default)")
    .option("--mcp-config <file>", "more MCP servers, in .mcp.json's shape")
    .option("--trust", "start this project's own servers without asking")
    .action((opts: Record<string, unknown>) => {
      invocation = { kind: "mcp", options: validate([], { ...program.opts(), ...opts }, flagOrigins(program, SETTINGS, env)) };
    });

  const memory = program.command("memory").description("facts kept across sessions: memory ls, show <id>, add [--user] <text>, rm <id>, edit <id> <text>, review [--json]");
  const memoryAction = (action: MemoryAction) => (args: string[], opts: { json?: boolean; user?: boolean }) => {
    invocation = { kind: "memory", action, args, user: Boolean(opts.user), json: Boolean(opts.json), cwd: resolve(String(program.opts().cwd ?? ".")) };
  };
  const MEMORY_HELP: Record<MemoryAction, [string, string]> = {
    ls: ["", "this project's facts and yours, and those waiting for review (the default)"],
    show: ["<id>", "one fact, every field"],
    add: ["<text...>", "keep a fact for this project (--user: for every project of yours)"],
    rm: ["<id>", "remove a fact, or drop one waiting for review"],
    edit: ["<id> <text...>", "rewrite a fact"],
    review: ["", "keep, drop or edit, one key each, what folds offered and facts hel did not write"],
  };
  for (const action of MEMORY_ACTIONS) {
    const [args, help] = MEMORY_HELP[action];
    const command = memory
      .command(action, action === "ls" ? { isDefault: true } : {})
      .description(help)
      .option("--json", "as JSON");
    if (args) command.arguments(args);
    if (action === "add") command.option("--user", "for every project of yours, kept in your hel folder");
    command.action((...given: unknown[]) => memoryAction(action)(given.slice(0, -2).flat() as string[], given.at(-2) as { json?: boolean; user?: boolean }));
  }

  program
    .command("config")
    .description("each setting's value here and where it came from; flags go before it: hel --model <name> config [--json]")
    .option("--json", "as JSON")
    .action((opts: { json?: boolean }) => {
      invocation = { kind: "config", options: validate([], program.opts(), flagOrigins(program, SETTINGS, env)), json: Boolean(opts.json) };
    });

  program
    .command("stats")
    .description("this project's requests, tokens, cache hits and dollars by day and by model, peak and off-peak: stats [--days N] [--json]")
    .option("--days <n>", "only the last N days (UTC), today included")
    .option("--json", "as JSON")
    .action((opts: { days?: string; json?: boolean }) => {
      invocation = { kind: "stats", days: opts.days === undefined ? null : dayCount(opts.days), json: Boolean(opts.json), cwd: resolve(String(program.opts().cwd ?? ".")) };
    });

  program
    .command("web")
    .description("a read-only viewer of this project's sessions in your browser, on 127.0.0.1 only: web [--port N]")
    .option("--port <n>", "the port to listen on (default: any free one)")
    .action((opts: { port?: string }) => {
      invocation = { kind: "web", port: opts.port === undefined ? 0 : portNumber(opts.port), cwd: resolve(String(program.opts().cwd ?? ".")) };
    });

  for (const command of [program, ...program.commands, ...sessions.commands, ...worktrees.commands, ...mcp.commands, ...memory.commands]) {
    command.exitOverride().configureOutput({ writeErr: () => {} });
  }
  try {
    program.parse(argv, { from: "user" });
  } catch (error) {
    const e = error as { code?: string; message?: string; exitCode?: number };
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") {
      throw new ExitNow(0);
    }
    if (error instanceof HelError) throw error;
    const message = (e.message ?? String(error)).replace(/^error: /, "");
    throw new HelError(`${message} — see hel --help`, 2);
  }
  if (!invocation) throw new HelError("nothing to do — see hel --help", 2);
  return invocation;
}

/** Thrown after commander printed --help or --version: exit with this status, print nothing more. */
export class ExitNow extends Error {
  constructor(readonly exitCode: number) {
    super("exit");
  }
}

function validate(prompt: string[], opts: Record<string, unknown>, origin: RunOptions["origin"]): RunOptions {
  const parsed = RunOptionsSchema.safeParse({ prompt, pickSession: opts.resume === true, ...flagValues(opts, SETTINGS), origin });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HelError(`${issue?.message ?? "invalid option"} — see hel --help`, 2);
  }
  if ((parsed.data.resume || parsed.data.pickSession) && parsed.data.continue) throw new HelError("--resume and --continue cannot be used together — pick one", 2);
  if (parsed.data.json && parsed.data.jsonEvents) throw new HelError("--json and --json-events cannot be used together — pick one", 2);
  const other = parsed.data.json ? "--json" : parsed.data.jsonEvents ? "--json-events" : null;
  if (parsed.data.outputFormat !== "text" && other) throw new HelError(`--output-format ${parsed.data.outputFormat} and ${other} both write stdout's JSON — pick one`, 2);
  return parsed.data;
}
