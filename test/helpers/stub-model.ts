// A bare chat-completions endpoint for tests that need many or huge requests answered without the
// simulator's work per request (tokenizing, the prefix cache): it answers each POST with one streamed
// text answer, after whatever the test makes it wait for, and records when each request arrived.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { unstamped } from "../../src/agent/stamps.js";

export interface StubRequest {
  /** The last user message of the request: which instruction it carries. */
  instruction: string;
  arrivedAt: number;
}

export interface StubModel {
  url: string;
  requests: StubRequest[];
  /** Called with each request before it is answered; the answer waits for the promise it returns. */
  before: ((request: StubRequest) => Promise<void>) | null;
  close(): Promise<void>;
}

const chunk = (content: string): string =>
  `data: ${JSON.stringify({
    id: "stub",
    object: "chat.completion.chunk",
    created: 1,
    model: "stub",
    choices: [{ index: 0, delta: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10 },
  })}\n\ndata: [DONE]\n\n`;

export async function startStubModel(): Promise<StubModel> {
  const stub: StubModel = { url: "", requests: [], before: null, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on("data", (d: Buffer) => pieces.push(d));
    req.on("end", async () => {
      const body = JSON.parse(Buffer.concat(pieces).toString("utf8")) as { messages: { role: string; content: string }[] };
      const request = { instruction: unstamped(body.messages.filter((m) => m.role === "user").at(-1)?.content ?? ""), arrivedAt: Date.now() };
      stub.requests.push(request);
      await stub.before?.(request);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(chunk(`done: ${request.instruction}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return stub;
}
