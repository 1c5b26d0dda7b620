// hel's command line (its flags are a contract: scripts and evals use them), parsed with commander and checked with zod into RunOptions.
// These flag names are a contract with scripts and evals: add to them, never rename them.
import { Command, Option } from "commander";
import { resolve } from "node:path";
import { DEFAULT_CHILD_MAX_STEPS } from "../agent/children/child-budget.js";
import { DELEGATE_MODES } from "../agent/events.js";
import { DEFAULT_TOOLS, SELECTABLE_TOOLS } from "../agent/toolbox.js";
import { HelError } from "../errors.js";
import { ACCESS_LEVELS, APPROVAL_MODES } from "../tools/types.js";
import { EFFORTS, type Effort } from "../wire/messages.js";
import { SETTING_OPTIONS, type SettingKey } from "../settings/setting-keys.js";
import { RunOptionsSchema, type RunOptions } from "../settings/run-options.js";

export type { RunOptions };

const DEFAULT_MODEL = "deepseek-flash";
const DEFAULT_BASE_URL = "https://api.deepseek.com";
const DEFAULT_EFFORT: Effort = "high";

export type Invocation =
  | { kind: "run"; options: RunOptions }
  /** `hel [flags] acp`: an editor drives hel over the Agent Client Protocol; the flags before it set up every session. */
  | { kind: "acp"; options: RunOptions }
  | { kind: "sessions"; action: "ls" | "show" | "rm" | "fork"; ids: string[]; json: boolean; cwd: string; at?: number }
  | { kind: "rewind"; id: string | null; to: number | "rewind"; files: boolean; conversation: boolean; cwd: string }
  | { kind: "mcp"; options: RunOptions };

/** A turn number as --at and --to take it. */
function turnNumber(flag: string, text: string, least: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < least) throw new HelError(`${flag} takes a turn number${least > 0 ? " from 1" : ""}, not ${JSON.stringify(text)} — see hel sessions show for the turns`, 2);
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
    .argument("[prompt...]", "the instruction; without one, instructions are read from stdin, one per line")
    .addOption(new Option("--delegate <mode>", "offer delegate_task, giving the child this context, and review_changes").choices(DELEGATE_MODES))
    .option("--resume [id]", "continue a saved session (full id or a unique prefix); without an id, pick one from a list")
    .option("-c, --continue", "continue the most recently updated session of this project", false)
    .option("-C, --cwd <dir>", "the folder to start in; the project is the nearest folder at or above it with .hel/ or .git", ".")
    .option("--model <name>", "the model (env HEL_MODEL)", env.HEL_MODEL || DEFAULT_MODEL)
    .option("--base-url <url>", "the API base URL (env HEL_BASE_URL)", env.HEL_BASE_URL || DEFAULT_BASE_URL)
    .option("--max-output-tokens <n>", "max_tokens of each request (default 8192, or 65536 when thinking is on, since reasoning counts against it)")
    .option("--max-steps <n>", "model requests allowed per instruction, per agent", "50")
    .option("--child-max-steps <n>", "model requests allowed per subagent (delegation or review)", String(DEFAULT_CHILD_MAX_STEPS))
    .option("--child-max-tokens <n>", "prompt + completion tokens allowed per subagent (default: no limit)")
    .option("--child-model <name>", "the model of task-only delegations and reviews (default: the session's); full and no-tools children and asks keep the session's")
    .option("--max-cost <usd>", "end the turn (exit_reason budget) before a request that would take this session's spend past this many US dollars")
    .addOption(new Option("--access <level>", "what tools may do; children inherit it").choices(ACCESS_LEVELS).default("edit"))
    .option("--network", "let commands reach the network (sandboxed commands have none by default)", false)
    .addOption(
      new Option("--approval <mode>", "on-request: the model may ask you to give a command the sandbox stopped what it denied (default in the interactive prompt); never: it may not (default elsewhere)").choices(
        APPROVAL_MODES,
      ),
    )
    .option("--tools <names>", `comma-separated tools to offer, from ${SELECTABLE_TOOLS.join(", ")}; none = no tools`, DEFAULT_TOOLS.join(","))
    .addOption(new Option("--effort <level>", "reasoning effort; none turns thinking off").choices(EFFORTS).default(DEFAULT_EFFORT))
    .addOption(new Option("--auto-fold <on|off>", "fold a command episode that failed, then passed, into a note without waiting for the model").choices(["on", "off"]).default("on"))
    .option("--compact-at <tokens>", "compact the conversation when the next request would exceed this many input tokens (default 80% of the model's context window); 0 = never")
    .option("--json", "print one JSON object per instruction on stdout", false)
    .option("--json-events", "print every event as a JSON line on stdout as it happens (for editors and scripts)", false)
    .option("--show-reasoning", "show all of the model's reasoning on stderr, not just its last lines while it streams", false)
    .option("--record <dir>", "write record.json and raw/*.jsonl into <dir>")
    .option(
      "--trust",
      "trust this project's own settings that widen what hel does (base-url, access, network, allow, approval, hooks, MCP servers) for this run, without asking; with --resume, adopt a session hel did not write here (cloned with the project, or saved by an older hel)",
      false,
    )
    .option("--mcp-config <file>", "MCP servers to start, in .mcp.json's shape (besides the project's .mcp.json and the config's mcp-servers)")
    .addHelpText(
      "after",
      `
Environment:
  DEEPSEEK_API_KEY   your DeepSeek API key (required; never written to disk)
  HEL_MODEL, HEL_BASE_URL  defaults for --model and --base-url
  HEL_PRICES         a JSON price table replacing the built-in one (for the cost estimates)
  HEL_DEBUG=1        show stack traces
  NO_COLOR           no colours in the terminal

Settings: ~/.config/hel/config.json ($XDG_CONFIG_HOME/hel/config.json) and the project's .hel/config.json,
  keys the long flag names (model, effort, access, network, auto-fold, compact-at, child-max-steps,
  child-max-tokens, child-model, max-cost, base-url, approval, checkpoint-max-mb: the disk the file
  checkpoints may use, default 1024; allow: command prefixes given the network unasked, such as
  ["git fetch"], matched on whole words of a simple command line; mcp-servers: MCP servers
  as in .mcp.json's mcpServers; mcp-timeout: seconds an MCP tool call may take, default 60) and hooks
  (commands run at SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop with the
  event's JSON on stdin; exit 2 blocks); flags and HEL_MODEL/HEL_BASE_URL win over the project's file,
  which wins over the user's. The project's base-url, network, allow, approval, hooks, MCP servers (its
  .mcp.json and its mcp-servers) and an access wider than the user's (or edit) are used only once you
  trust the project: hel asks in a terminal and keeps the answer in trusted.json beside config.json
  (asking again when those settings change); --trust trusts it for one run; otherwise they are ignored.

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
      invocation = { kind: "run", options: validate(prompt, opts, settingSources(program, env)) };
    });

  const sessions = program
    .command("sessions")
    // The top-level help lists commands by name only: their arguments are said here.
    .description("list, show and delete this project's sessions: sessions ls [--json], sessions show <id> [--json], sessions rm <ids...>, sessions fork <id> [--at <turn>]");
  const sessionCommand = (action: "ls" | "show" | "rm" | "fork") => (ids: string[] | string | undefined, opts: { json?: boolean; at?: string }) => {
    invocation = {
      kind: "sessions",
      action,
      ids: ids === undefined ? [] : Array.isArray(ids) ? ids : [ids],
      json: Boolean(opts.json),
      cwd: resolve(String(program.opts().cwd ?? ".")),
      ...(opts.at !== undefined ? { at: turnNumber("--at", opts.at, 0) } : {}),
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
    .description("delete sessions (refused while in use)")
    .argument("<ids...>")
    .action((ids) => sessionCommand("rm")(ids, {}));
  sessions
    .command("fork")
    .description("a new session whose conversation is the first turns of another, byte for byte")
    .argument("<id>")
    .option("--at <turn>", "keep turns 1 to this one (default: all)")
    .action((id, opts) => sessionCommand("fork")(id, opts));
  program
    .command("acp")
    .description("serve an editor over the Agent Client Protocol on stdin/stdout (Zed's agent_servers and others); flags go before it: hel --model <name> acp")
    .action(() => {
      const options = validate([], program.opts(), settingSources(program, env));
      if (options.json || options.jsonEvents) throw new HelError("hel acp keeps stdout for the protocol, so --json and --json-events cannot be used with it — leave them out", 2);
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
      invocation = { kind: "mcp", options: validate([], { ...program.opts(), ...opts }, settingSources(program, env)) };
    });

  for (const command of [program, ...program.commands, ...sessions.commands, ...mcp.commands]) {
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

const ENV_SETTINGS: Partial<Record<SettingKey, string>> = { model: "HEL_MODEL", "base-url": "HEL_BASE_URL" };

function settingSources(program: Command, env: NodeJS.ProcessEnv): RunOptions["setBy"] {
  const setBy: RunOptions["setBy"] = {};
  for (const [key, option] of Object.entries(SETTING_OPTIONS) as [SettingKey, string][]) {
    const envName = ENV_SETTINGS[key];
    if (program.getOptionValueSource(option) === "cli") setBy[key] = "flag";
    else if (envName && env[envName]) setBy[key] = "env";
  }
  return setBy;
}

function validate(prompt: string[], opts: Record<string, unknown>, setBy: RunOptions["setBy"]): RunOptions {
  const toolsText = String(opts.tools ?? "");
  const parsed = RunOptionsSchema.safeParse({
    prompt,
    delegate: opts.delegate ?? null,
    resume: typeof opts.resume === "string" ? opts.resume : null,
    pickSession: opts.resume === true,
    continue: Boolean(opts.continue),
    cwd: resolve(String(opts.cwd ?? ".")),
    model: opts.model,
    baseUrl: opts.baseUrl,
    maxOutputTokens: opts.maxOutputTokens ?? null,
    maxSteps: opts.maxSteps,
    childMaxSteps: opts.childMaxSteps,
    childMaxTokens: opts.childMaxTokens ?? null,
    childModel: opts.childModel ?? null,
    maxCost: opts.maxCost ?? null,
    access: opts.access,
    network: Boolean(opts.network),
    approval: opts.approval ?? null,
    allow: [],
    // Each tool once: a repeated name would send the model two identical definitions.
    tools: toolsText === "none" || toolsText === "" ? [] : [...new Set(toolsText.split(",").map((t) => t.trim()))],
    effort: opts.effort,
    autoFold: opts.autoFold,
    compactAt: opts.compactAt ?? null,
    json: Boolean(opts.json),
    jsonEvents: Boolean(opts.jsonEvents),
    showReasoning: Boolean(opts.showReasoning),
    record: opts.record ? resolve(String(opts.record)) : null,
    trust: Boolean(opts.trust),
    mcpServers: {},
    mcpConfig: opts.mcpConfig ? resolve(String(opts.mcpConfig)) : null,
    mcpTimeout: 60,
    setBy,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HelError(`${issue?.message ?? "invalid option"} — see hel --help`, 2);
  }
  if ((parsed.data.resume || parsed.data.pickSession) && parsed.data.continue) throw new HelError("--resume and --continue cannot be used together — pick one", 2);
  if (parsed.data.json && parsed.data.jsonEvents) throw new HelError("--json and --json-events cannot be used together — pick one", 2);
  return parsed.data;
}
