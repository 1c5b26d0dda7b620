// The tool list stays short (issue 44, design §18): a plain instruction's first request, with every
// tool the catalogue offers by default (whatever it holds when this runs), counted with the simulator's
// tokenizer (sim/tokens.ts: DeepSeek's rule of thumb of 0.3 token per English character, with JSON's
// punctuation pairs a token each, as the prompt_tokens the simulator reports, the chat template's
// markers and tool header included) and with the estimate hel's meter makes of a request it has not
// sent (src/agent/meter.ts). Two checks: no more than the figure docs/measured.md gives (so a longer
// tool list is a decision that updates the figure), and under the target of 1,500, which today's
// definitions do not meet: that one is marked as failing, and starts to fail once they do, to be
// flipped then.
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

/** The figure of docs/measured.md's row: the simulator's count. */
async function measuredFigure(): Promise<number> {
  const text = await readFile(new URL("../../docs/measured.md", import.meta.url), "utf8");
  const row = text.split("\n").find((line) => line.startsWith(ROW));
  const figure = row && /\| ([\d,]+) simulator tokens/.exec(row)?.[1];
  if (!figure) throw new Error(`docs/measured.md has no row starting ${JSON.stringify(ROW)} with "| N simulator tokens"`);
  return Number(figure.replaceAll(",", ""));
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
    const figure = await measuredFigure();
    expect(first.counted).toBeLessThanOrEqual(figure + FOLDER_NAME_SLACK);
    expect(first.estimated).toBeLessThanOrEqual(figure + FOLDER_NAME_SLACK);
  });

  it.fails(`is under ${TARGET.toLocaleString("en-US")} tokens (not yet: flip to it() once the definitions are trimmed)`, () => {
    expect(first.counted).toBeLessThan(TARGET);
  });
});
