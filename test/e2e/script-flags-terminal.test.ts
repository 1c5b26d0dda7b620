// --json-schema and --output-format json|stream-json are for scripts: the interactive prompt (stdin a
// terminal, no instruction) refuses each in one line, exit 2, before any request.
import { expect, it } from "vitest";
import { inTerminal } from "../helpers/terminal.js";
import { simulators } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";

const start = simulators();

it.each([
  [["--json-schema", "{}"], '--json-schema shapes the answer a script reads: give the instruction (hel --json-schema <schema> "…") or pipe instructions in, not the interactive prompt'],
  [["--output-format", "stream-json"], '--output-format stream-json is for scripts: give the instruction (hel --output-format stream-json "…") or pipe instructions in, not the interactive prompt'],
])("the interactive prompt refuses %j", async (flags, line) => {
  const sim = await start({ script: [] });
  const term = inTerminal(["-C", await tempProject(), ...flags], sim.url, { NO_COLOR: "1" });
  expect(await term.exited).toBe(2);
  expect(term.screen()).toContain(line);
  expect(sim.requests).toHaveLength(0);
});
