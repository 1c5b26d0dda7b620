// The interactive prompt, used when stdin is a terminal. Ctrl-C while an instruction runs aborts
// the request in flight and returns to the prompt with the conversation still valid; Ctrl-C at an
// empty prompt twice, or Ctrl-D, exits.
import { createInterface } from "node:readline";
import type { TurnOutcome } from "../agent/loop.js";

export interface InteractiveDeps {
  instruct(text: string, signal: AbortSignal): Promise<TurnOutcome>;
  /** Stops the spinner, so the prompt is drawn on a clean line. */
  stop(): void;
}

export async function runInteractive(deps: InteractiveDeps): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, prompt: "› ", terminal: true });
  let running: AbortController | null = null;
  let armedExit = false;
  process.stderr.write("hel — type an instruction; Ctrl-C interrupts, Ctrl-D exits\n");

  await new Promise<void>((resolve) => {
    rl.on("SIGINT", () => {
      if (running) {
        running.abort();
        return;
      }
      if (armedExit || rl.line.length === 0) {
        if (armedExit) return rl.close();
        armedExit = true;
        process.stderr.write("\n(press Ctrl-C again or Ctrl-D to exit)\n");
        rl.prompt();
        return;
      }
      // Ctrl-C on a typed line clears it, as in a shell.
      rl.write(null, { ctrl: true, name: "u" });
    });
    rl.on("close", () => resolve());
    rl.on("line", async (line) => {
      armedExit = false;
      const text = line.trim();
      if (!text) return rl.prompt();
      rl.pause();
      running = new AbortController();
      try {
        const outcome = await deps.instruct(text, running.signal);
        deps.stop();
        if (outcome.exitReason === "aborted") process.stderr.write("(interrupted — the conversation is kept; type the next instruction)\n");
      } finally {
        running = null;
        rl.resume();
        rl.prompt();
      }
    });
    rl.prompt();
  });
}
