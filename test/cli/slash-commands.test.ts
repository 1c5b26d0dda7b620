// The interactive prompt's commands on a conversation in this process, against the simulator: /model
// switches only to a model the API lists (asked once), or, when the list cannot be fetched, to one
// the price table knows; Tab completes command names, session ids, models and efforts; a refused
// request's advice inside the prompt names its commands, not the flags.
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ConversationControls } from "../../src/conversation/controls.js";
import { completeSlash, parseSlash, slashCommands, type SlashContext } from "../../src/cli/slash-commands.js";
import { PLAIN } from "../../src/cli/term/kit/style.js";
import { openTestConversation, type TestConversation } from "../helpers/conversation.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
let open: TestConversation | undefined;
afterEach(async () => {
  await open?.close();
  await sim?.close();
  open = sim = undefined;
});

/** Runs `line` as the prompt would; the lines it said. */
async function slash(controls: ConversationControls, line: string): Promise<string[]> {
  const said: string[] = [];
  const ctx: SlashContext = { controls, say: (lines) => void said.push(...lines), ask: async () => "", style: PLAIN, width: 80, exit: () => {}, switchTo: () => {}, send: () => {}, commands: BUILT_IN };
  const parsed = parseSlash(line, BUILT_IN)!;
  await parsed.command!.run(ctx, parsed.args);
  return said;
}

const BUILT_IN = slashCommands([]);
const listRequests = (s: Simulator) => s.requests.filter((r) => r.body === undefined).length;

describe("/model", () => {
  it("refuses a model the API does not list, in one line naming those it does, and switches to one it lists", async () => {
    sim = await startSimulator({ script: [{ content: "one" }] });
    open = await openTestConversation({ sim, args: ["-C", await tempProject()], interactive: true });
    const { controls } = open.conversation;
    expect(await slash(controls, "/model nonsense-model")).toEqual(["no model nonsense-model — the API lists deepseek-flash, deepseek-v4-pro; the model stays deepseek-flash"]);
    expect(controls.model).toBe("deepseek-flash");
    expect(await slash(controls, "/model deepseek-v4-pro")).toEqual(["model deepseek-v4-pro from the next request on"]);
    // The list was asked for once, with the key, and the next request is the new model's.
    expect(listRequests(sim)).toBe(1);
    expect(sim.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    await open.instruct("hi");
    expect(open.bodies().at(-1)!.model).toBe("deepseek-v4-pro");
  });

  it("without the API's list, switches only to a model the price table knows, and says it was not checked", async () => {
    sim = await startSimulator();
    open = await openTestConversation({ sim, args: ["-C", await tempProject()], interactive: true });
    await sim.close();
    const { controls } = open.conversation;
    const [refused, ...more] = await slash(controls, "/model mystery-model");
    expect(more).toEqual([]);
    expect(refused).toMatch(
      /^the model stays deepseek-flash: the API's list of models could not be fetched \(cannot reach http:\/\/127\.0\.0\.1:\d+ \(.*\) — .*\) and the price table does not know mystery-model — try again, or use one of deepseek-flash, deepseek-v4-flash, deepseek-v4-flash-vision-exp, deepseek-v4-pro$/,
    );
    expect(await slash(controls, "/model deepseek-v4-pro")).toEqual([
      expect.stringMatching(/^model deepseek-v4-pro from the next request on \(not checked against the API's list, which could not be fetched: cannot reach /),
    ]);
    expect(controls.model).toBe("deepseek-v4-pro");
  });
});

describe("Tab", () => {
  it("completes command names, then the values of /resume, /model and /effort", async () => {
    sim = await startSimulator({ script: [{ content: "one" }] });
    const dir = await tempProject();
    const earlier = await openTestConversation({ sim, args: ["-C", dir] });
    await earlier.instruct("first");
    const id = earlier.conversation.session.id;
    await earlier.close();
    open = await openTestConversation({ sim, args: ["-C", dir], interactive: true });
    const { controls } = open.conversation;
    expect(await completeSlash("/re", BUILT_IN, controls)).toEqual({ completions: ["/resume", "/rewind", "/remember"], on: "/re" });
    expect(await completeSlash(`/resume ${id.slice(0, 4)}`, BUILT_IN, controls)).toEqual({ completions: [id], on: id.slice(0, 4) });
    expect(await completeSlash("/model deepseek-v", BUILT_IN, controls)).toEqual({ completions: ["deepseek-v4-pro"], on: "deepseek-v" });
    expect(await completeSlash("/effort ", BUILT_IN, controls)).toEqual({ completions: ["none", "low", "high", "max"], on: "" });
    expect(await completeSlash("/effort h", BUILT_IN, null)).toEqual({ completions: [], on: "/effort h" });
    expect(await completeSlash("/diff x", BUILT_IN, controls)).toEqual({ completions: [], on: "/diff x" });
  });
});

describe("a refused request inside the prompt", () => {
  it("says to check /model and /effort there, and --model on the command line", async () => {
    sim = await startSimulator({ script: [{ fault: { kind: "status", status: 400 } }, { fault: { kind: "status", status: 400 } }] });
    const dir = await tempProject();
    open = await openTestConversation({ sim, args: ["-C", dir], interactive: true });
    expect((await open.instruct("hi")).error).toMatch(/^DeepSeek refused the request \(400.*\) — check \/model and \/effort; if it persists/);
    const oneShot = await openTestConversation({ sim, args: ["-C", dir] });
    expect((await oneShot.instruct("hi")).error).toMatch(/^DeepSeek refused the request \(400.*\) — check --model and the other flags; if it persists/);
    await oneShot.close();
  });
});
