// The tool list stays short (issue 44, design §18): a plain instruction's first request, with every
// tool the catalogue offers by default (whatever it holds when this runs), counted with the simulator's
// tokenizer (sim/tokens.ts: DeepSeek's rule of thumb of 0.3 token per English character, with JSON's
// punctuation pairs a token each, as the prompt_tokens the simulator reports, the chat template's
// markers and tool header included) and with the estimate hel's meter makes of a request it has not
// sent (src/agent/meter.ts). Two checks: each count no more than the figure docs/measured.md gives
// for it (so a longer tool list is a decision that updates the figures), and the simulator's count
// under the target of 1,500. The meter's estimate is checked against its own figure: its rule of
// thumb counts JSON's punctuation a little higher than the simulator, so on a request that is mostly
// tool definitions it comes out above the simulator's count.
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { estimateRequestTokens } from "../../src/agent/meter.js";
import { DEFAULT_TOOLS } from "../../src/agent/toolbox.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { startSimulator } from "../../sim/index.js";
import { runInProcess } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

const TARGET = 1500;
/** The system prompt names the project's folder, whose random six characters are 2 to 6 simulator tokens. */
const FOLDER_NAME_SLACK = 4;
const ROW = "| first request of a plain instruction, every default tool offered";

/** The figures of docs/measured.md's row: the simulator's count and the meter's estimate. */
async function measuredFigures(): Promise<{ counted: number; estimated: number }> {
  const text = await readFile(new URL("../../docs/measured.md", import.meta.url), "utf8");
  const row = text.split("\n").find((line) => line.startsWith(ROW));
  const figures = row && /\| ([\d,]+) simulator tokens; ([\d,]+) estimated/.exec(row);
  if (!figures) throw new Error(`docs/measured.md has no row starting ${JSON.stringify(ROW)} with "| N simulator tokens; M estimated"`);
  const number = (figure: string) => Number(figure.replaceAll(",", ""));
  return { counted: number(figures[1]!), estimated: number(figures[2]!) };
}

describe("a plain instruction's first request, every default tool offered", () => {
  const first = { counted: 0, estimated: 0, tools: [] as string[] };
  beforeAll(async () => {
    const sim = await startSimulator({ script: [{ content: "Hello." }] });
    try {
      const result = await runInProcess({ args: ["-C", await tempProject(), "say hello"], baseUrl: sim.url });
      expect(result.code).toBe(0);
      const body = sim.requests[0]!.body as ChatRequest;
      first.tools = body.tools!.map((t) => t.function.name);
      first.counted = sim.requests[0]!.usage!.prompt_tokens;
      first.estimated = estimateRequestTokens(null, body.messages, body.tools!);
    } finally {
      await sim.close();
    }
  });

  it("offers every tool the catalogue offers by default", () => {
    expect([...first.tools].sort()).toEqual([...DEFAULT_TOOLS].sort());
  });

  it("is no longer than docs/measured.md says, counted either way", async () => {
    const figures = await measuredFigures();
    expect(first.counted).toBeLessThanOrEqual(figures.counted + FOLDER_NAME_SLACK);
    expect(first.estimated).toBeLessThanOrEqual(figures.estimated + FOLDER_NAME_SLACK);
  });

  it(`is under ${TARGET.toLocaleString("en-US")} tokens`, () => {
    expect(first.counted).toBeLessThan(TARGET);
  });
});
