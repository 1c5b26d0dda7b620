// The interactive mode, used when stdin is a terminal. Instructions go to the model one at a time;
// a line finished while hel works is queued and sent next, in order. Lines that name a command
// (slash-commands.ts) are run by hel instead. Ctrl-C while an instruction runs aborts the request in
// flight and returns to the prompt with the conversation still valid, putting any queued lines back
// on the prompt; Ctrl-C on a typed line clears it; Ctrl-C at an empty prompt twice, or Ctrl-D, exits
// (an instruction still running is aborted and finished first).
//
// The prompt outlives one conversation: /new and /resume end the conversation, and its driver
// (modes/interactive.ts) opens the next one on the same prompt.
import type { TurnOutcome } from "../../agent/loop/loop.js";
import type { ConversationControls } from "../../conversation/controls.js";
import { loadPromptHistory } from "../term/kit/prompt-history.js";
import { formatRecentExchanges } from "../term/recent-exchanges.js";
import { pickSession } from "../term/session-picker.js";
import { completeSlash, parseSlash, slashCommands, type SlashCommand } from "../slash-commands.js";
import { fitWidth, rowWidth, styleFor, terminalSafe, visibleWidth, wrapLine } from "../term/kit/style.js";
import { HISTORY_SIZE, openTerminalPrompt, type TerminalPrompt } from "../term/kit/terminal-prompt.js";
import type { SessionSummary } from "../../session/catalog.js";
import type { AskApproval } from "../../tools/command/ask-approval.js";
import { approvalQuestion, APPROVAL_KEYS } from "../term/approval-question.js";
import type { Fact } from "../../memory/fact.js";
import type { MemoryStore } from "../../memory/store.js";
import { reviewFacts } from "../memory-review.js";
import { PLAN_KEYS, PLAN_PROMPT_MODE, planModeLine, planQuestion } from "../term/plan-question.js";
import { GO_INSTRUCTION } from "../../agent/plan-mode.js";

export interface ConversationDeps {
  /** `candidates`: facts a fold offered to keep, asked about once the turn is done. */
  instruct(text: string, signal: AbortSignal): Promise<TurnOutcome & { candidates?: readonly Fact[] }>;
  /** The facts kept across sessions; null: memory is off. */
  memory: MemoryStore | null;
  /** The user has begun typing an instruction. */
  warm(): void;
  /** Stops the spinner, so the prompt is drawn on a clean line. */
  stop(): void;
  /** Prints a line above the spinner while an instruction runs. */
  note(line: string): void;
  controls: ConversationControls;
  /** True when this conversation continues a saved session: its last exchanges are shown first. */
  resumed: boolean;
  /** The project's and the user's command files, as rows after hel's own commands. */
  commandFiles: readonly SlashCommand[];
}

/** How a conversation ended: the user is done, or wants a new session (null) or a saved one. */
export type ConversationEnd = { exit: true } | { exit: false; sessionId: string | null };

export interface Interactive {
  converse(deps: ConversationDeps): Promise<ConversationEnd>;
  /** The numbered picker of `hel --resume` without an id. */
  pick(sessions: readonly SessionSummary[]): Promise<string | null>;
  /** Whether a command may run outside the sandbox, asked with one key. */
  askApproval: AskApproval;
  close(): void;
}

interface Handlers {
  line(text: string): void;
  warm(): void;
  /** What the conversation's commands may read, for Tab's completions. */
  controls: ConversationControls;
  interrupt(): void;
  /** Shift+Tab: plan mode on or off. */
  switchPlan(): void;
  close(): void;
}

export async function openInteractive(projectDir: string, secrets: readonly string[]): Promise<Interactive> {
  const stderr = process.stderr;
  const style = styleFor(stderr, process.env);
  const say = (lines: string[]) => stderr.write(lines.map((l) => `${fitLine(l, rowWidth(stderr.columns))}\n`).join(""));
  const saved = await loadPromptHistory(projectDir, secrets, HISTORY_SIZE);
  /** The handlers of the conversation under way; lines typed between conversations wait for the next. */
  let current: Handlers | null = null;
  const early: string[] = [];
  /** Every line sent, command or instruction, is recalled by the arrow keys, in this run and the next. */
  const keep = (text: string) => {
    prompt.remember(text);
    void saved.add(text);
  };
  let closed = false;
  let greeted = false;
  /** The commands of the conversation under way: its project's command files may differ from the last's. */
  let commands = slashCommands([]);
  const prompt: TerminalPrompt = openTerminalPrompt({
    input: process.stdin,
    output: stderr,
    history: saved.entries,
    complete: (line) => completeSlash(line, commands, current?.controls ?? null),
    onLine: (text) => {
      if (current) return current.line(text);
      if (text.trim()) {
        keep(text);
        early.push(text);
      }
    },
    onTyping: () => current?.warm(),
    onInterrupt: () => current?.interrupt(),
    onModeKey: () => current?.switchPlan(),
    onClose: () => {
      closed = true;
      current?.close();
    },
  });

  const askKey = (question: string, keys: readonly string[]) => prompt.askKey(question, keys, new AbortController().signal);

  return {
    pick(sessions) {
      return pickSession({ sessions, say, ask: (q) => prompt.ask(q), width: stderr.columns || 100 });
    },
    async askApproval(request, signal) {
      const { lines, keys } = approvalQuestion(request, style);
      say(lines);
      const key = await prompt.askKey(keys, Object.keys(APPROVAL_KEYS), signal);
      return key === null ? "no" : APPROVAL_KEYS[key]!;
    },
    close() {
      current = null;
      prompt.close();
    },
    converse(deps) {
      return new Promise<ConversationEnd>((resolve) => {
        let running: { controller: AbortController; done: Promise<void> } | null = null;
        /** Lines to send next; a command's text (`sent`) goes to the model as it is, never read as a command. */
        const queue: { text: string; sent?: true }[] = [];
        let commanding = false;
        let armedExit = false;
        let ending: ConversationEnd | null = null;

        const end = (how: ConversationEnd) => {
          ending ??= how;
          if (running) return;
          if (current === handlers) current = null;
          resolve(ending);
        };
        const { plan } = deps.controls;
        const showMode = (redraw = false) => prompt.setMode(plan.on ? PLAN_PROMPT_MODE : null, redraw);
        const ready = () => {
          if (ending) return end(ending);
          const next = queue.shift();
          if (next === undefined) {
            showMode();
            return prompt.show();
          }
          // A queued line is shown as if typed at the prompt, so the screen reads in order; a command's
          // text comes from a file, whose control characters must not reach the terminal.
          const lines = terminalSafe(next.text).split("\n");
          say([fitWidth(`› ${lines[0]}${lines.length > 1 ? style.dim(` (+${lines.length - 1} lines)`) : ""}`, rowWidth(stderr.columns))]);
          start(next.text, next.sent);
        };
        const start = (text: string, sent?: true) => {
          const slash = sent ? null : parseSlash(text, commands);
          if (slash) {
            commanding = true;
            return void runCommand(slash).finally(() => {
              commanding = false;
              ready();
            });
          }
          prompt.hide();
          const controller = new AbortController();
          const done = (async () => {
            try {
              const outcome = await deps.instruct(text, controller.signal);
              deps.stop();
              if (outcome.exitReason === "aborted" && !closed) say(["(interrupted — the conversation is kept; type the next instruction)"]);
              if (outcome.candidates && deps.memory && !closed) await reviewCandidates(deps.memory, outcome.candidates);
              // A plan, with nothing queued after it: go, edit, or keep planning.
              if (plan.on && outcome.exitReason === "completed" && !closed && queue.length === 0) await afterPlan(controller.signal);
            } finally {
              running = null;
              if (!closed) ready();
              else end({ exit: true });
            }
          })();
          running = { controller, done };
        };
        /** What the turn's folds offered to keep, one key each; what is not answered waits for hel memory review. */
        const reviewCandidates = async (memory: MemoryStore, candidates: readonly Fact[]) => {
          const done = await reviewFacts(memory, candidates, { say, key: askKey, line: (q) => prompt.ask(q), style });
          if (done.left > 0) say([style.dim(`(${done.left} left for hel memory review)`)]);
        };
        const afterPlan = async (signal: AbortSignal) => {
          const { lines, keys } = planQuestion(style);
          say(lines);
          const answer = PLAN_KEYS[(await prompt.askKey(keys, Object.keys(PLAN_KEYS), signal)) ?? "n"]!;
          if (answer === "keep") return;
          plan.on = false;
          say([planModeLine(false)]);
          // The same session goes on at its own access, the plan in view: nothing is copied.
          if (answer === "go") queue.unshift({ text: GO_INSTRUCTION, sent: true });
          else prompt.insert(`${GO_INSTRUCTION} `);
        };
        const runCommand = async (slash: NonNullable<ReturnType<typeof parseSlash>>) => {
          if (!slash.command) return say([`there is no command /${slash.name} — /help lists them`]);
          try {
            await slash.command.run(
              {
                controls: deps.controls,
                say,
                ask: (q) => prompt.ask(q),
                askKey,
                memory: deps.memory,
                style,
                width: stderr.columns || 100,
                exit: () => prompt.close(),
                switchTo: (sessionId) => end({ exit: false, sessionId }),
                send: (text) => void queue.unshift({ text, sent: true }),
                commands,
              },
              slash.args,
            );
          } catch (error) {
            say([`hel: /${slash.name} failed: ${error instanceof Error ? error.message : String(error)}`]);
          }
        };

        const handlers: Handlers = {
          controls: deps.controls,
          warm: deps.warm,
          line(text) {
            armedExit = false;
            if (!text.trim()) return running ? undefined : prompt.show();
            keep(text);
            if (running || commanding) {
              queue.push({ text });
              deps.note(style.dim(`(queued, sent when hel is done: ${text.split("\n")[0]})`));
              return;
            }
            start(text);
          },
          switchPlan() {
            plan.on = !plan.on;
            if (running) deps.note(style.dim(`(${planModeLine(plan.on)})`));
            showMode(!running);
          },
          interrupt() {
            if (running) {
              // What was queued goes back on the prompt, to send or change once the interruption is seen.
              if (queue.length > 0)
                prompt.insert(
                  queue
                    .splice(0)
                    .map((q) => q.text)
                    .join("\n"),
                );
              return running.controller.abort();
            }
            if (prompt.typing) return prompt.clearLine();
            if (armedExit) return prompt.close();
            armedExit = true;
            say(["", "(press Ctrl-C again or Ctrl-D to exit)"]);
            prompt.show();
          },
          close() {
            stderr.write("\n");
            running?.controller.abort();
            end({ exit: true });
          },
        };

        current = handlers;
        commands = slashCommands(deps.commandFiles);
        if (!greeted) say(["hel — type an instruction, /help for commands; Ctrl-C interrupts, Ctrl-D exits"]);
        greeted = true;
        if (deps.resumed) say(formatRecentExchanges(deps.controls.messages(), style, rowWidth(stderr.columns)));
        if (closed) return end({ exit: true });
        queue.push(...early.splice(0).map((text) => ({ text })));
        ready();
      });
    },
  };
}

/**
 * A line for the user within the terminal's width: wrapped when it is plain or in one style
 * throughout (a note, a hint), cut when styles change inside it (a table row).
 */
function fitLine(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  const styled = /^(\x1b\[[0-9;]*m)([^\x1b]*)(\x1b\[[0-9;]*m)$/.exec(line);
  if (styled)
    return wrapLine(styled[2]!, width)
      .map((row) => styled[1]! + row + styled[3]!)
      .join("\n");
  return line.includes("\x1b[") ? fitWidth(line, width) : wrapLine(line, width).join("\n");
}
