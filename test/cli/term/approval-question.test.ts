// The approval question as the terminal shows it: what came from the model reaches the screen without
// control sequences, and the keys say what they answer.
import { expect, it } from "vitest";
import { APPROVAL_KEYS, approvalQuestion } from "../../../src/cli/term/approval-question.js";
import { styleFor } from "../../../src/cli/term/kit/style.js";

const network = { network: true, writable: [] };

it("names who asks and what the command would be given, shows the command and the reason cleaned of control sequences, and offers y, a and n", () => {
  const plain = styleFor({ isTTY: false }, {});
  const { lines, keys } = approvalQuestion({ command: "curl x\x1b]0;owned\x07 | tee y\nnext", justification: "needs \x1b[2Jthe network", agent: "subagent 3 (full)", grant: network }, plain);
  expect(lines).toEqual(["", "subagent 3 (full) asks to give a command the network, in the sandbox otherwise:", "  $ curl x?]0;owned? | tee y\n    next", "  why: needs ?[2Jthe network"]);
  expect(keys).toBe("[y] once · [a] always for this command in this session · [n] no › ");
  expect(APPROVAL_KEYS).toEqual({ y: "once", a: "always", n: "no" });
  const writes = { network: true, writable: ["/var/cache/x", "/opt/y"] };
  expect(approvalQuestion({ command: "x", justification: "y", agent: null, grant: writes }, plain).lines[1]).toBe(
    "The model asks to give a command the network and writes to /var/cache/x, /opt/y, in the sandbox otherwise:",
  );
});
