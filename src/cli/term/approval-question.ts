// The approval question as the terminal shows it: who asks, what the command would be given (it stays
// in the sandbox otherwise), the command and the model's reason, each cleaned of control sequences
// (they came from the model), then the one-key choice. The interactive prompt asks it through its own
// key reader; a one-shot run in a terminal, which has no prompt, with the terminal put in raw mode just
// for the one key. Either way only a key pressed after the question is shown answers it: what was
// typed ahead is taken out first (typed-ahead.ts).
import type { ApprovalAnswer, ApprovalRequest, AskApproval } from "../../tools/command/ask-approval.js";
import { describeGrant } from "../../tools/command/sandbox-grant.js";
import type { Output } from "../../output.js";
import { terminalSafe, type Style } from "./kit/style.js";
import { takeTypedAhead } from "./kit/typed-ahead.js";

/** The keys that answer it, and what each means. */
export const APPROVAL_KEYS: Readonly<Record<string, ApprovalAnswer>> = { y: "once", a: "always", n: "no" };

export function approvalQuestion(request: ApprovalRequest, style: Style): { lines: string[]; keys: string } {
  const who = request.agent === null ? "The model" : terminalSafe(request.agent);
  const indent = (text: string) => terminalSafe(text).replace(/\n/g, "\n    ");
  return {
    lines: ["", style.bold(`${who} asks to give a command ${describeGrant(request.grant)}, in the sandbox otherwise:`), `  $ ${indent(request.command)}`, `  why: ${indent(request.justification)}`],
    keys: "[y] once · [a] always for this command in this session · [n] no › ",
  };
}

/** Asks on a terminal no prompt reads: one key from `input`; Ctrl-C, Ctrl-D or `signal` is a no. */
export function askOnRawTerminal(input: NodeJS.ReadStream, output: Pick<Output, "write">, style: Style): AskApproval {
  return (request, signal) => {
    const { lines, keys } = approvalQuestion(request, style);
    return new Promise((resolve) => {
      const done = (key: string | null) => {
        input.off("data", typed);
        signal.removeEventListener("abort", aborted);
        input.setRawMode(false);
        input.pause();
        output.write(`${key ?? "(no answer)"}\n`);
        resolve(key === null ? "no" : APPROVAL_KEYS[key]!);
      };
      const typed = (data: Buffer) => {
        const text = data.toString("utf8").toLowerCase();
        if (text.includes("\x03") || text.includes("\x04")) return done(null);
        const key = [...text].find((c) => Object.hasOwn(APPROVAL_KEYS, c));
        if (key !== undefined) done(key);
      };
      const aborted = () => done(null);
      // Raw mode first: a line half typed ahead is only readable once the terminal stops keeping lines.
      // What was typed ahead goes before the question shows: any key pressed once it shows answers it.
      input.setRawMode(true);
      takeTypedAhead(input);
      output.write(`${lines.join("\n")}\n${keys}`);
      if (signal.aborted) return aborted();
      signal.addEventListener("abort", aborted);
      input.on("data", typed);
      input.resume();
    });
  };
}
