// Two agents sending at the same time (parallel children, an `ask` beside its parent), through one
// model client to the simulator over HTTP: each request's body is its own until it is sent, so
// serializing one never overwrites the other.
import { afterEach, expect, it } from "vitest";
import { buildRequest } from "../../src/agent/request.js";
import { createModelClient } from "../../src/model/client.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { startSimulator, type Simulator } from "../../sim/index.js";

let sim: Simulator;
afterEach(async () => sim?.close());

/** A body of about `chars` characters, multi-byte ones included, that names `who`. */
function bodyOf(who: string, chars: number): ChatRequest {
  const line = `${who}: línea — 行 ✓ "quoted" \\ 😀\n`;
  return buildRequest(
    [
      { role: "system", content: `You are ${who}.` },
      { role: "user", content: line.repeat(Math.ceil(chars / line.length)) },
    ],
    [],
    { model: "deepseek-flash", maxTokens: 100, effort: "none" },
  );
}

it("two requests serialized and in flight at once both arrive exactly as serialized", async () => {
  sim = await startSimulator({ contextWindow: 10_000_000 });
  const client = createModelClient({ baseURL: sim.url, apiKey: "sk-test" });
  // The first is the larger, so a body written into memory the first still uses would cut it short.
  const first = bodyOf("first", 1_500_000);
  const second = bodyOf("second", 500_000);
  try {
    // Twice: the second time, one of them is written into the memory an answered request gave back.
    for (let round = 1; round <= 2; round++) {
      const answers = await Promise.all([first, second].map((body) => client.complete(body, new AbortController().signal)));
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
    }
  } finally {
    await client.close();
  }
  const received = sim.requests.map((r) => r.body as ChatRequest);
  expect(received).toHaveLength(4);
  const byWho = (who: string) => received.filter((body) => body.messages[0]?.content === `You are ${who}.`);
  expect(byWho("first")).toEqual([first, first].map((body) => JSON.parse(JSON.stringify(body))));
  expect(byWho("second")).toEqual([second, second].map((body) => JSON.parse(JSON.stringify(body))));
});
