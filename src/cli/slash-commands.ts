// The interactive prompt's commands: a line that starts with one of these names is run by hel and
// never sent to the model. One entry per command, in the order /help lists them; a command added
// later is one more entry here. The project's and the user's command files (command-files.ts) are
// rows after these, of the same shape; none may take a name of these.
import { foldInstruction } from "../agent/context/fold.js";
import { foldChoices } from "../agent/context/episodes.js";
import { groupDigits } from "../format.js";
import { EFFORTS, type Effort } from "../wire/messages.js";
import { formatChanges } from "./term/changes-view.js";
import type { ConversationControls } from "./conversation-controls.js";
import { formatCost } from "./term/cost-view.js";
import { pickSession } from "./term/session-picker.js";
import type { Style } from "./term/style.js";
import { formatSessionList } from "./term/transcript.js";

export interface SlashContext {
  controls: ConversationControls;
  /** Writes lines for the user. */
  say(lines: string[]): void;
  /** Asks for one line on the prompt. */
  ask(question: string): Promise<string>;
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
  },
  {
    name: "model",
    args: "<name>",
    summary: "use this model from the next request on",
    run: (ctx, args) => {
      if (args) ctx.controls.setModel(args);
      ctx.say([`model ${ctx.controls.model}${args ? " from the next request on" : ""}`]);
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
];

function rewoundFiles(changes: readonly { path: string; action: "restore" | "remove" }[], turn: number): string[] {
  if (changes.length === 0) return [`no file has changed since before turn ${turn}`];
  return changes.map((c) => (c.action === "remove" ? `removed ${c.path} (made since)` : `put back ${c.path}`));
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

/** Tab's completions: the command names that start as the line does. */
export function completeSlash(line: string, commands: readonly SlashCommand[]): string[] {
  if (!/^\/[a-z0-9-]*$/.test(line)) return [];
  return commands.map((c) => `/${c.name}`).filter((name) => name.startsWith(line));
}
