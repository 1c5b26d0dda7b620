// The interactive prompt, used when stdin is a terminal. Ctrl-C while an instruction runs aborts
// the request in flight and returns to the prompt with the conversation still valid; Ctrl-C at an
// empty prompt twice, or Ctrl-D, exits (an instruction still running is aborted and finished first).
// Two commands: `/compact [focus]` compacts the conversation now; `/fold #N` asks the model to fold
// the finished episode that began at stamp #N.
import { createInterface } from "node:readline";
import type { TurnOutcome } from "../agent/loop.js";

export interface InteractiveDeps {
  instruct(text: string, signal: AbortSignal): Promise<TurnOutcome>;
  /** `/compact [focus]`: compacts the conversation now. */
  compact(focus: string, signal: AbortSignal): Promise<void>;
  /** Stops the spinner, so the prompt is drawn on a clean line. */
  stop(): void;
}

export async function runInteractive(deps: InteractiveDeps): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, prompt: "› ", terminal: true });
  let running: { controller: AbortController; done: Promise<void> } | null = null;
  let closed = false;
  let armedExit = false;
  process.stderr.write("hel — type an instruction (or /compact [focus], /fold #N); Ctrl-C interrupts, Ctrl-D exits\n");

  const run = async (text: string, controller: AbortController) => {
    try {
      const command = /^\/compact(?:\s+(.*))?$/.exec(text);
      if (command) {
        await deps.compact(command[1]?.trim() ?? "", controller.signal);
        deps.stop();
        return;
      }
      const fold = /^\/fold\s+#?(\d+)$/.exec(text);
      const outcome = await deps.instruct(fold ? foldInstruction(Number(fold[1])) : text, controller.signal);
      deps.stop();
      if (outcome.exitReason === "aborted" && !closed) process.stderr.write("(interrupted — the conversation is kept; type the next instruction)\n");
    } finally {
      running = null;
      if (!closed) rl.prompt();
    }
  };

  await new Promise<void>((resolve) => {
    rl.on("SIGINT", () => {
      if (running) return running.controller.abort();
      if (armedExit) return rl.close();
      if (rl.line.length > 0) {
        // Ctrl-C on a typed line clears it, as in a shell.
        rl.write(null, { ctrl: true, name: "u" });
        return;
      }
      armedExit = true;
      process.stderr.write("\n(press Ctrl-C again or Ctrl-D to exit)\n");
      rl.prompt();
    });
    rl.on("close", () => {
      closed = true;
      process.stderr.write("\n");
      const pending = running;
      pending?.controller.abort();
      void (pending?.done ?? Promise.resolve()).then(() => resolve());
    });
    rl.on("line", (line) => {
      armedExit = false;
      const text = line.trim();
      // The input stays live while an instruction runs — pausing it would also swallow Ctrl-C.
      if (running) return void process.stderr.write("(still working — Ctrl-C interrupts)\n");
      if (!text) return rl.prompt();
      const controller = new AbortController();
      running = { controller, done: run(text, controller) };
    });
    rl.prompt();
  });
}

/** What `/fold #N` asks of the model: the user names where the episode began, the model writes the note. */
export function foldInstruction(stamp: number): string {
  return `Fold the finished episode that began at #${stamp} now: call fold with since "#${stamp}" and a note that keeps its caveats and constraints, not only its conclusions. Then stop.`;
}
