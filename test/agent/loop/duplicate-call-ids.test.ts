// A model that gives two tool calls of one message the same id: both run, each result answers a call
// of its own, and the conversation is sent back, saved and resumed. Conversations opened in this process against the simulator.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../sim/index.js";
import type { ChatRequest } from "../../../src/wire/messages.js";
import { runInProcess } from "../../helpers/conversation.js";
import { tempProject } from "../../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const bodies = () => sim.requests.map((r) => r.body as ChatRequest);

it("a repeated tool call id gets one of its own, so the results pair up, the session saves and resumes", async () => {
  sim = await startSimulator({
    script: [
      {
        reasoning: "read both",
        tool_calls: [
          { id: "call_00_same", name: "read_file", arguments: '{"path":"a.txt"}' },
          { id: "call_00_same", name: "read_file", arguments: '{"path":"b.txt"}' },
        ],
      },
      { reasoning: "both read", content: "read them" },
      { content: "still here" },
    ],
  });
  const project = await tempProject();
  await writeFile(join(project, "a.txt"), "alpha\n");
  await writeFile(join(project, "b.txt"), "beta\n");

  const first = await runInProcess({ args: ["-C", project, "read a and b"], baseUrl: sim.url });
  expect(first.stderr).not.toContain("hel: ");
  expect(first.code).toBe(0);
  const results = bodies()[1]!.messages.slice(2);
  expect(results).toEqual([
    {
      role: "assistant",
      content: "",
      reasoning_content: "read both",
      tool_calls: [
        { id: "call_00_same", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
        { id: "call_00_same_01_hel", type: "function", function: { name: "read_file", arguments: '{"path":"b.txt"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_00_same", content: expect.stringMatching(/^\[#2\] [^]*alpha/) },
    { role: "tool", tool_call_id: "call_00_same_01_hel", content: expect.stringMatching(/^\[#3\] [^]*beta/) },
  ]);
  expect(sim.requests.map((r) => r.status)).toEqual([200, 200]);

  const id = /resume with: hel --resume (\S+)/.exec(first.stderr)?.[1];
  expect(id).toBeDefined();
  const snapshot = JSON.parse(await readFile(join(project, ".hel", "sessions", id!, "snapshot.json"), "utf8")) as ChatRequest;
  expect(snapshot.messages.slice(2, 5)).toEqual(results);

  const resumed = await runInProcess({ args: ["-C", project, "--resume", id!, "anything else?"], baseUrl: sim.url });
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toBe("still here\n");
  expect(bodies()[2]!.messages.slice(2)).toEqual([...results, { role: "assistant", content: "read them", reasoning_content: "both read" }, { role: "user", content: "[#4] anything else?" }]);
});
