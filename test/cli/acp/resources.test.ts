// What an editor is given of the user's and the project's own files: diagnostics as notices or as
// lines of the agent's message, the command files as available commands, a prompt naming one as its text.
import { expect, it } from "vitest";
import { commandsUpdate, commandText, diagnosticUpdates } from "../../../src/cli/acp/resources.js";

const fix = { name: "fix", description: "fix a thing", body: "Fix $ARGUMENTS carefully.", shown: ".hel/commands/fix.md" };
const plain = { name: "plain", body: "Explain the build.", shown: ".hel/commands/plain.md" };

it("sends a diagnostic as a notice where the editor shows them, else as a warning line of the agent's message", () => {
  const diagnostics = [{ file: "HEL.md", problem: "HEL.md is a FIFO" }];
  expect(diagnosticUpdates(diagnostics, true)).toEqual([{ sessionUpdate: "notice", severity: "warning", title: "hel: HEL.md is a FIFO" }]);
  expect(diagnosticUpdates(diagnostics, false)).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hel: HEL.md is a FIFO\n" } }]);
});

it("offers the command files, those that take arguments with a hint, and sends a named one's text", () => {
  expect(commandsUpdate([])).toEqual([]);
  expect(commandsUpdate([fix, plain])).toEqual([
    {
      sessionUpdate: "available_commands_update",
      availableCommands: [
        { name: "fix", description: "fix a thing", input: { hint: "args" } },
        { name: "plain", description: "(.hel/commands/plain.md)" },
      ],
    },
  ]);
  expect(commandText("/fix the tests ", [fix, plain])).toBe("Fix the tests carefully.");
  expect(commandText("/plain for CI", [fix, plain])).toBe("Explain the build.\n\nfor CI");
  // Not a command file's name: the prompt as it was typed.
  expect(commandText("/other thing", [fix, plain])).toBe("/other thing");
  expect(commandText("fix it", [fix, plain])).toBe("fix it");
});
