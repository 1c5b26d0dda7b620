// The trust question (trust.ts) on the terminal, loaded only when a run has one to ask: most never
// do, and readline is not needed before the first request.
import { createInterface } from "node:readline";

/** The question on the terminal (stdin and stderr): only "y" or "yes" is a yes, so Enter means no. */
export function askOnTerminal(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise((done) => {
    let answered = false;
    // Ctrl-C or Ctrl-D is a no too.
    rl.on("SIGINT", () => rl.close());
    rl.on("close", () => {
      if (!answered) done(false);
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      done(/^\s*y(es)?\s*$/i.test(answer));
    });
  });
}
