// The fetch hel gives the openai SDK, over real HTTP on 127.0.0.1: what goes out is exactly the
// request given, what comes back reads as the SDK expects, compressed answers are decoded, and
// failures keep undici's codes (which model/client.ts classifies).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { dispatcherFetch } from "../../src/model/dispatcher-fetch.js";
import { HttpHeaders } from "../../src/model/http-headers.js";
import { waitFor } from "../helpers/wait.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.destroy();
  server?.closeAllConnections();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = agent = undefined;
});

async function serve(answer: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const one = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(one);
      answer(req, res, one);
    });
  });
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function fetchOver(options: ConstructorParameters<typeof Agent>[0] = {}) {
  agent = new Agent(options);
  return dispatcherFetch(agent);
}

async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString();
}

describe("dispatcherFetch", () => {
  it("sends the method, path, query, headers and body exactly as given", async () => {
    const { url, seen } = await serve((_req, res) => res.end("ok"));
    const body = Buffer.from('{"model":"deepseek-chat"}');
    const headers = new HttpHeaders({ Authorization: "Bearer k", "Content-Type": "application/json", "X-Stainless-Lang": "js" });
    const response = await fetchOver()(`${url}/v1/chat/completions?x=1&y=%20`, { method: "post", headers, body });
    expect(await response.text()).toBe("ok");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v1/chat/completions?x=1&y=%20", body: '{"model":"deepseek-chat"}' });
    expect(seen[0]!.headers).toMatchObject({ authorization: "Bearer k", "content-type": "application/json", "x-stainless-lang": "js", "content-length": String(body.length) });
    // Nothing fetch would add: no accept-encoding (an answer stream is not worth compressing).
    expect(seen[0]!.headers["accept-encoding"]).toBeUndefined();
  });

  it("answers with status, headers, url and a body read as bytes, text or JSON", async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(req.url === "/bad" ? 429 : 200, { "retry-after": "2", "x-request-id": "r1", "content-type": "application/json" });
      res.end(JSON.stringify({ path: req.url }));
    });
    const fetch = fetchOver();
    const good = await fetch(new URL(`${url}/good`));
    expect({ ok: good.ok, status: good.status, url: good.url }).toEqual({ ok: true, status: 200, url: `${url}/good` });
    expect(good.headers.get("X-Request-Id")).toBe("r1");
    expect(await good.json()).toEqual({ path: "/good" });
    const bad = await fetch(`${url}/bad`);
    expect({ ok: bad.ok, status: bad.status, retryAfter: bad.headers.get("retry-after") }).toEqual({ ok: false, status: 429, retryAfter: "2" });
    expect(await bytesOf(bad.body)).toBe('{"path":"/bad"}');
  });

  it("decodes gzip, deflate, br and a list of codings", async () => {
    const text = "data: one\n\ndata: two\n\n".repeat(50);
    const encoded: Record<string, Buffer> = {
      gzip: gzipSync(text),
      deflate: deflateSync(text),
      br: brotliCompressSync(text),
      "deflate, gzip": gzipSync(deflateSync(text)),
    };
    const { url } = await serve((req, res) => {
      const coding = decodeURIComponent(req.url!.slice(1));
      res.writeHead(200, { "content-encoding": coding });
      res.end(encoded[coding]);
    });
    const fetch = fetchOver();
    for (const coding of Object.keys(encoded)) {
      const response = await fetch(`${url}/${encodeURIComponent(coding)}`);
      expect(await bytesOf(response.body), coding).toBe(text);
    }
  });

  it("refuses a coding it cannot decode, naming it", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": "snappy" });
      res.end("xx");
    });
    await expect(fetchOver()(url)).rejects.toThrow("the answer is encoded with snappy, which hel cannot decode");
  });

  it("keeps undici's error codes: a refused connection, and an answer gone silent, compressed or not", async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(200, req.url === "/gzip" ? { "content-encoding": "gzip" } : {});
      res.write(req.url === "/gzip" ? gzipSync("data: partial\n\n").subarray(0, 12) : "data: partial\n\n");
      // ...and nothing more: the body timeout must fire.
    });
    const fetch = fetchOver({ bodyTimeout: 200 });
    for (const path of ["/plain", "/gzip"]) {
      const response = await fetch(`${url}${path}`);
      const error = await bytesOf(response.body).then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as { code?: string }).code, path).toBe("UND_ERR_BODY_TIMEOUT");
    }
    const closed = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    await new Promise((done) => {
      server!.closeAllConnections();
      server!.close(done);
    });
    server = undefined;
    const refused = await fetch(closed).then(
      () => null,
      (e: unknown) => e,
    );
    expect((refused as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("ends with an AbortError when the signal fires, before the answer or during it", async () => {
    const { url, seen } = await serve((req, res) => {
      if (req.url === "/never") return;
      res.writeHead(200);
      res.write("data: first\n\n");
    });
    const fetch = fetchOver();
    const early = new AbortController();
    const waiting = fetch(`${url}/never`, { signal: early.signal });
    await waitFor(() => seen.length === 1, "the server to have the request");
    early.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    const late = new AbortController();
    const response = await fetch(`${url}/stream`, { signal: late.signal });
    const chunks = response.body[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false); // the answer has begun
    late.abort();
    await expect(chunks.next()).rejects.toMatchObject({ name: "AbortError" });
  });
});
