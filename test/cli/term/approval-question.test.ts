// The approval question as the terminal shows it: what came from the model reaches the screen without
// control sequences, and the keys say what they answer.
import { expect, it } from "vitest";
import { APPROVAL_KEYS, approvalQuestion } from "../../../src/cli/term/approval-question.js";
import { styleFor } from "../../../src/cli/term/style.js";

it("names who asks, shows the command and the reason cleaned of control sequences, and offers y, a and n", () => {
  const plain = styleFor({ isTTY: false }, {});
  const { lines, keys } = approvalQuestion({ command: "curl x\x1b]0;owned\x07 | tee y\nnext", justification: "needs \x1b[2Jthe network", agent: "subagent 3 (full)" }, plain);
  expect(lines).toEqual(["", "subagent 3 (full) asks to run a command outside the sandbox:", "  $ curl x?]0;owned? | tee y\n    next", "  why: needs ?[2Jthe network"]);
  expect(keys).toBe("[y] once · [a] always for this command in this session · [n] no › ");
  expect(APPROVAL_KEYS).toEqual({ y: "once", a: "always", n: "no" });
  expect(approvalQuestion({ command: "x", justification: "y", agent: null }, plain).lines[1]).toBe("The model asks to run a command outside the sandbox:");
});
