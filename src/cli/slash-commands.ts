// The interactive prompt's commands: a line that starts with one of these names is run by hel and
// never sent to the model. One entry per command, in the order /help lists them; a command added
// later is one more entry here. The project's and the user's command files (command-files.ts) are
// rows after these, of the same shape; none may take a name of these.
import { foldInstruction } from "../agent/context/fold.js";
import { foldChoices } from "../agent/context/episodes.js";
import { groupDigits } from "../format.js";
import { EFFORTS, type Effort } from "../wire/messages.js";
import { formatChanges } from "./term/kit/changes-view.js";
import type { ConversationControls } from "../conversation/controls.js";
import { formatCost } from "./term/cost-view.js";
import { pickSession } from "./term/session-picker.js";
import { terminalSafe, type Style } from "./term/kit/style.js";
import { formatSessionList } from "./term/transcript.js";
import { formatFactList } from "./term/memory-view.js";
import { MemoryRefused, type MemoryStore } from "../memory/store.js";
import { reviewFacts } from "./memory-review.js";
import { planModeLine } from "./term/plan-question.js";

export interface SlashContext {
  controls: ConversationControls;
  /** Writes lines for the user. */
  say(lines: string[]): void;
  /** Asks for one line on the prompt. */
  ask(question: string): Promise<string>;
  /** Asks for one of `keys`; null: none was given (Ctrl-C, Ctrl-D). */
  askKey?(question: string, keys: readonly string[]): Promise<string | null>;
  /** The facts kept across sessions; null or absent: memory is off. */
  memory?: MemoryStore | null;
  style: Style;
  width: number;
  /** Ends the interactive mode, as Ctrl-D does. */
  exit(): void;
  /** Ends this conversation and goes on in a new session (null) or the saved session named. */
  switchTo(sessionId: string | null): void;
  /** Sends `text` to the model as the next instruction, once the command is done. */
  send(text: string): void;
  /** Every command the prompt knows: these, then the command files'. */
  commands: readonly SlashCommand[];
}

export interface SlashCommand {
  name: string;
  /** How its argument is written in /help, if it takes one. */
  args?: string;
  summary: string;
  run(ctx: SlashContext, args: string): Promise<void> | void;
  /** What its argument may be, for Tab: all of them (those that start as typed are kept). */
  values?(controls: ConversationControls): Promise<readonly string[]> | readonly string[];
}

const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "help",
    summary: "list these commands",
    run: (ctx) => {
      const usage = ctx.commands.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""}`);
      const width = Math.max(...usage.map((u) => u.length));
      ctx.say([
        ...ctx.commands.map((c, i) => `${usage[i]!.padEnd(width)}  ${c.summary}`),
        ctx.style.dim("Enter sends; a line ending in \\ (or Alt-Enter) goes on below; ↑/↓ history; Tab completes; Ctrl-C interrupts; Ctrl-D exits"),
      ]);
    },
  },
  { name: "exit", summary: "leave hel (as Ctrl-D)", run: (ctx) => ctx.exit() },
  {
    name: "new",
    summary: "start a new session from here on",
    run: (ctx) => {
      if (!ctx.controls.messages().some((m) => m.role === "user")) return ctx.say(["this session is new already"]);
      ctx.switchTo(null);
    },
  },
  {
    name: "sessions",
    summary: "list this project's sessions",
    run: async (ctx) => {
      const current = ctx.controls.sessionId();
      // This process holds the current session's lease: it is in use here, not elsewhere.
      const sessions = (await ctx.controls.sessions()).map((s) => (s.id === current ? { ...s, in_use: false } : s));
      ctx.say([
        ...formatSessionList(sessions, { width: ctx.width }).trimEnd().split("\n"),
        ...(current ? [`this session: ${current}`] : []),
        ctx.style.dim("/resume <id> continues one; /resume alone picks from a numbered list"),
      ]);
    },
  },
  {
    name: "resume",
    args: "[id]",
    summary: "continue a saved session (a numbered picker without an id)",
    run: async (ctx, args) => {
      const sessions = await ctx.controls.sessions();
      let id: string | null;
      if (args) {
        try {
          id = await ctx.controls.resolveSession(args);
        } catch (error) {
          return ctx.say([error instanceof Error ? error.message : String(error)]);
        }
      } else {
        const others = sessions.filter((s) => s.id !== ctx.controls.sessionId());
        id = await pickSession({ sessions: others, say: ctx.say, ask: ctx.ask, width: ctx.width });
        if (id === null) return;
      }
      if (id === ctx.controls.sessionId()) return ctx.say([`session ${id} is the one you are in`]);
      if (sessions.find((s) => s.id === id)?.in_use) return ctx.say([`session ${id} is in use by another hel process — resume it once that one ends`]);
      ctx.switchTo(id);
    },
    values: async (controls) => (await controls.sessions()).filter((s) => s.error === null && s.id !== controls.sessionId()).map((s) => s.id),
  },
  {
    name: "model",
    args: "<name>",
    summary: "use this model from the next request on (one the API lists)",
    run: async (ctx, args) => {
      if (!args) return ctx.say([`model ${ctx.controls.model}`]);
      const choice = await modelChoice(args, ctx.controls);
      if (choice.refused) return ctx.say([choice.refused]);
      ctx.controls.setModel(args);
      ctx.say([`model ${args} from the next request on${choice.note ? ` (${choice.note})` : ""}`]);
    },
    values: async (controls) => {
      const listed = await controls.listedModels();
      return "ids" in listed ? listed.ids : controls.pricedModels;
    },
  },
  {
    name: "effort",
    args: `<${EFFORTS.join("|")}>`,
    summary: "reasoning effort from the next request on (none turns thinking off)",
    run: (ctx, args) => {
      if (args && !(EFFORTS as readonly string[]).includes(args)) return ctx.say([`effort is one of ${EFFORTS.join(", ")}`]);
      if (args) ctx.controls.setEffort(args as Effort);
      ctx.say([`effort ${ctx.controls.effort}${args ? " from the next request on" : ""}`]);
    },
    values: () => EFFORTS,
  },
  {
    name: "diff",
    summary: "the files this session changed, as diffs",
    run: async (ctx) => ctx.say(formatChanges(await ctx.controls.changes(), ctx.style)),
  },
  {
    name: "rewind",
    args: "[N] [files|conversation]",
    summary: "put files and the conversation back to before turn N (a numbered list without N)",
    run: async (ctx, args) => {
      const [first, what] = args.split(/\s+/).filter(Boolean);
      const turns = ctx.controls.turns();
      if (turns.length === 0) return ctx.say(["no turn to rewind to yet"]);
      let n = first ? Number(first) : NaN;
      if (!first) {
        const lines = await Promise.all(
          turns.map(async (t) => {
            const files = await ctx.controls.filesOf(t.n);
            return `${String(t.n).padStart(3)}  ${t.preview}${files?.length ? ctx.style.dim(`  (${files.join(", ")})`) : ""}`;
          }),
        );
        ctx.say([...lines, ctx.style.dim("the number of the turn to go back to before; Enter alone keeps everything")]);
        const answer = (await ctx.ask("rewind to before turn: ")).trim();
        if (!answer) return;
        n = Number(answer);
      }
      if (!Number.isInteger(n) || n < 1 || n > turns.length + 1) return ctx.say([`the turns are 1 to ${turns.length}`]);
      if (what && what !== "files" && what !== "conversation") return ctx.say(["/rewind N files puts back only the files, /rewind N conversation only the conversation"]);
      if (what !== "conversation") ctx.say(rewoundFiles(await ctx.controls.rewindFiles(n), n));
      if (what !== "files" && n <= turns.length) {
        const fork = await ctx.controls.forkBefore(n);
        ctx.say([`the conversation goes on from before turn ${n} in session ${fork}; all of it stays in session ${ctx.controls.sessionId()}`]);
        ctx.switchTo(fork);
      }
    },
  },
  {
    name: "undo",
    summary: "put back the files the last turn changed",
    run: async (ctx) => {
      const last = ctx.controls.turns().at(-1);
      if (!last) return ctx.say(["no turn to undo yet"]);
      ctx.say(rewoundFiles(await ctx.controls.rewindFiles(last.n), last.n));
    },
  },
  {
    name: "cost",
    summary: "tokens and dollars spent so far in this session, per agent, and against --max-cost",
    run: (ctx) => ctx.say(formatCost(ctx.controls.usage(), ctx.controls.maxCost)),
  },
  {
    name: "jobs",
    summary: "list the background jobs",
    run: (ctx) => {
      const jobs = ctx.controls.jobs();
      if (jobs.length === 0) return ctx.say(["no background jobs in this run"]);
      ctx.say(jobs.map((j) => `job ${j.job} ${j.running ? "running" : (j.ended ?? "ended")}: ${terminalSafe(j.command)}  ${ctx.style.dim(j.log)}`));
    },
  },
  {
    name: "remember",
    args: "<text>",
    summary: "keep a fact for this project across sessions (hel memory add --user keeps one for all of yours)",
    run: async (ctx, args) => {
      if (!ctx.memory) return ctx.say(["memory is off here (the memory setting): nothing is kept"]);
      if (args.trim() === "") return ctx.say(["/remember <text>: say what to keep"]);
      try {
        const fact = await ctx.memory.add("project", args.trim(), "user");
        ctx.say([`kept ${fact.id}: recalled with the instructions it bears on`]);
      } catch (error) {
        if (!(error instanceof MemoryRefused)) throw error;
        ctx.say([`hel: ${error.message}`]);
      }
    },
  },
  {
    name: "memory",
    args: "[review]",
    summary: "the facts kept across sessions; review: keep or drop those waiting",
    values: () => ["review"],
    run: async (ctx, args) => {
      const { memory } = ctx;
      if (!memory) return ctx.say(["memory is off here (the memory setting)"]);
      if (args.trim() !== "review") return ctx.say(formatFactList([...(await memory.facts()), ...(await memory.pending())], ctx.style));
      const waiting = [...(await memory.pending()), ...(await memory.facts()).filter((l) => l.planted)].map((l) => l.fact);
      if (waiting.length === 0 || !ctx.askKey) return ctx.say(["nothing waits for review"]);
      const done = await reviewFacts(memory, waiting, { say: ctx.say, key: ctx.askKey, line: ctx.ask, style: ctx.style });
      ctx.say([`kept ${done.kept}, dropped ${done.dropped}${done.left > 0 ? `, ${done.left} left` : ""}`]);
    },
  },
  {
    name: "compact",
    args: "[focus]",
    summary: "compact the conversation now into a summary (the original is archived; recall reads it)",
    run: async (ctx, args) => {
      const tooSmall = await ctx.controls.compact(args.trim());
      if (tooSmall !== null) ctx.say([`nothing to compact yet: ${groupDigits(tooSmall)} tokens`]);
    },
  },
  {
    name: "fold",
    args: "[#N]",
    summary: "ask the model to fold the finished episode that began at stamp #N into a note; alone, list where one may begin",
    run: (ctx, args) => {
      if (args.trim() === "") {
        const choices = foldChoices(ctx.controls.messages());
        if (choices.length === 0) return ctx.say(["nothing to fold since the last fold"]);
        return ctx.say(["fold since one of these with /fold #N:", ...choices.map((c) => `  #${c.stamp}  ${c.label} (~${groupDigits(c.tokens)} tokens to now)`)]);
      }
      const stamp = /^#?(\d+)$/.exec(args.trim());
      if (!stamp) return ctx.say(["/fold takes the stamp where the episode began, like /fold #12"]);
      ctx.send(foldInstruction(Number(stamp[1])));
    },
  },
  {
    name: "plan",
    args: "[on|off]",
    summary: "plan mode: the model looks, changes nothing, and ends with a plan for you to say go to; alone, switch it (Shift+Tab too)",
    values: () => ["on", "off"],
    run: (ctx, args) => {
      const word = args.trim();
      if (word !== "" && word !== "on" && word !== "off") return ctx.say(["/plan takes on or off, or nothing to switch plan mode"]);
      ctx.controls.plan.on = word === "" ? !ctx.controls.plan.on : word === "on";
      ctx.say([planModeLine(ctx.controls.plan.on)]);
    },
  },
];

/**
 * Whether /model may switch to `name`, checked before the next request would fail on it: the API must
 * list it. When the list cannot be had, a name the price table knows is taken, with a note (it is a
 * DeepSeek model, and a server that cannot list its models would fail the next request whatever the
 * model); any other name is refused.
 */
async function modelChoice(name: string, controls: ConversationControls): Promise<{ refused?: string; note?: string }> {
  const listed = await controls.listedModels();
  const priced = controls.pricedModels.includes(name);
  if ("ids" in listed) {
    if (!listed.ids.includes(name)) return { refused: `no model ${name} — the API lists ${listed.ids.join(", ") || "none"}; the model stays ${controls.model}` };
    return priced ? {} : { note: "not in the price table, so its cost is not estimated" };
  }
  if (priced) return { note: `not checked against the API's list, which could not be fetched: ${listed.error}` };
  return {
    refused: `the model stays ${controls.model}: the API's list of models could not be fetched (${listed.error}) and the price table does not know ${name} — try again, or use one of ${controls.pricedModels.join(", ")}`,
  };
}

function rewoundFiles(changes: readonly { path: string; action: "restore" | "remove" | "keep" }[], turn: number): string[] {
  if (changes.length === 0) return [`no file has changed since before turn ${turn}`];
  return changes.map((c) => (c.action === "remove" ? `removed ${c.path} (made since)` : c.action === "keep" ? `left ${c.path} as it is (not checkpointed: over 10 MB, or holding the API key)` : `put back ${c.path}`));
}

/** The prompt's commands: hel's own, then `files` (the command files'). */
export const slashCommands = (files: readonly SlashCommand[]): readonly SlashCommand[] => [...SLASH_COMMANDS, ...files];

export const isBuiltInCommand = (name: string): boolean => SLASH_COMMANDS.some((c) => c.name === name);

/** The command a line names, with its argument; null when the line is not a command. */
export function parseSlash(line: string, commands: readonly SlashCommand[]): { command: SlashCommand | null; name: string; args: string } | null {
  const match = /^\/([a-z][a-z0-9-]*)(?:\s+([^]*))?$/.exec(line.trim());
  if (!match) return null;
  const name = match[1]!;
  return { command: commands.find((c) => c.name === name) ?? null, name, args: (match[2] ?? "").trim() };
}

/**
 * Tab's completions of the line typed so far, and the end of the line they complete (`on`): the
 * names of `commands` that start as the line does, or, after a command whose argument has values
 * (session ids, models, efforts), those that start as its argument does. Without `controls` (no
 * conversation yet), names only.
 */
export async function completeSlash(line: string, commands: readonly SlashCommand[], controls: ConversationControls | null): Promise<{ completions: string[]; on: string }> {
  if (/^\/[a-z0-9-]*$/.test(line)) return { completions: commands.map((c) => `/${c.name}`).filter((name) => name.startsWith(line)), on: line };
  const argument = /^\/([a-z0-9-]+)\s+(\S*)$/.exec(line);
  const command = argument && commands.find((c) => c.name === argument[1]);
  if (!command?.values || !controls) return { completions: [], on: line };
  const typed = argument![2]!;
  return { completions: (await command.values(controls)).filter((value) => value.startsWith(typed)), on: typed };
}
