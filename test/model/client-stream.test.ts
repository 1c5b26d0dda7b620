// The model client reading answers as a server may really cut them: one event carrying many megabytes
// of tool-call arguments, sent in many small writes, over real HTTP from a raw local server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { buildRequest } from "../../src/agent/request.js";
import { createModelClient } from "../../src/model/client.js";
import { measureBufferWork } from "../helpers/buffer-work.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server answering every request with `stream`, written `piece` bytes at a time. */
async function serve(stream: Buffer, piece: number): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
      for (let at = 0; at < stream.length; at += piece) {
        if (!res.write(stream.subarray(at, at + piece))) await new Promise((resolve) => res.once("drain", resolve));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const event = (chunk: object): string => `data: ${JSON.stringify(chunk)}\n\n`;

it("one event with 25 MB of tool-call arguments, in 16 KB writes, comes out whole, each byte searched at most twice and copied once", async () => {
  const args = JSON.stringify({ path: "big.txt", content: `line "one"\n${"0123456789abcdef".repeat((25 * 1024 * 1024) / 16)}` });
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10 };
  const stream = Buffer.from(
    event({ choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }) +
      event({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_00_big", type: "function", function: { name: "write", arguments: args } }] } }] }) +
      event({ choices: [{ index: 0, delta: { content: "" }, finish_reason: "tool_calls" }], usage }) +
      "data: [DONE]\n\n",
  );
  const url = await serve(stream, 16 * 1024);
  const client = createModelClient({ baseURL: url, apiKey: "sk-test" });
  try {
    const body = buildRequest([{ role: "user", content: "write it" }], [], { model: "deepseek-flash", maxTokens: 100, effort: "none" });
    const { result: turn, work } = await measureBufferWork(() => client.complete(body, new AbortController().signal));
    // Every byte of the stream is searched for line breaks (LF, then CR) and no more; the one event
    // that spans reads is copied once. The slack is for the request and the headers.
    expect(work.searched).toBeGreaterThanOrEqual(stream.length);
    expect(work.searched).toBeLessThanOrEqual(2 * stream.length + 64 * 1024);
    expect(work.copied).toBeLessThanOrEqual(stream.length + 64 * 1024);
    expect(turn.finishReason).toBe("tool_calls");
    expect(turn.usage).toEqual(usage);
    const calls = turn.message.tool_calls!;
    expect(calls.map((c) => [c.id, c.function.name, c.function.arguments.length])).toEqual([["call_00_big", "write", args.length]]);
    expect(calls[0]!.function.arguments === args).toBe(true);
  } finally {
    await client.close();
  }
});
