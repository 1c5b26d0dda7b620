// The API's connection opened before the first request (src/model/early-connection.ts), over real
// sockets: a TCP relay in front of the simulator sees each connection and its first bytes. The first
// request goes out on the early connection and nothing goes before it; one the server closed is left
// for a new one; warm() opens one only when the client has none; one that failed is never reported;
// and one still in its handshake neither keeps a process running nor outlives close().
import { spawn } from "node:child_process";
import { createServer, connect, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { afterEach, expect, it } from "vitest";
import { buildRequest } from "../../src/agent/request.js";
import { createModelClient } from "../../src/model/client.js";
import { apiConnections, type ApiConnections } from "../../src/model/early-connection.js";
import { ModelError } from "../../src/model/errors.js";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { ROOT } from "../helpers/hel.js";

let sim: Simulator | undefined;
const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** The connections of a client for `url`, one opened already, as a start opens it. */
function opened(url: string): ApiConnections {
  const connections = apiConnections(url);
  connections.open();
  return connections;
}

const body = () => buildRequest([{ role: "user", content: "hi" }], [], { model: "deepseek-flash", maxTokens: 100, effort: "none" });

interface Relay {
  url: string;
  /** Each connection accepted, in order: the first bytes it carried ("" while none), and whether it has closed. */
  connections: { first: string; closed: boolean }[];
  /** Settles when the nth connection (1-based) has been accepted. */
  accepted(n: number): Promise<void>;
  /** Ends every connection open now. */
  drop(): void;
}

/** A relay to `target` on 127.0.0.1; `onAccept` may end a connection instead of relaying it. */
async function relay(target: string, onAccept?: (client: Socket, n: number) => boolean): Promise<Relay> {
  const up = new URL(target);
  const waiting = new Map<number, () => void>();
  const r: Relay = {
    url: "",
    connections: [],
    accepted: (n) => (r.connections.length >= n ? Promise.resolve() : new Promise((resolve) => waiting.set(n, resolve))),
    drop: () => {
      for (const socket of open) socket.destroy();
    },
  };
  const open = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    open.add(client);
    client.on("close", () => open.delete(client));
    const seen = { first: "", closed: false };
    r.connections.push(seen);
    const n = r.connections.length;
    client.on("close", () => (seen.closed = true));
    client.on("error", () => undefined);
    if (onAccept?.(client, n) !== false) {
      const upstream = connect(Number(up.port), up.hostname);
      sockets.add(upstream);
      upstream.on("error", () => client.destroy());
      client.on("data", (data: Buffer) => {
        if (seen.first === "") seen.first = data.toString("latin1").split("\r\n")[0]!;
      });
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
    }
    waiting.get(n)?.();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return r;
}

it("the first request goes out on the connection opened before it, which carried nothing before the request", async () => {
  sim = await startSimulator({ policy: "echo" });
  const link = await relay(sim.url);
  const early = opened(link.url);
  await link.accepted(1);
  // Open, and nothing on it yet: it is a socket only until a request takes it.
  expect(link.connections).toEqual([{ first: "", closed: false }]);
  const client = createModelClient({ baseURL: link.url, apiKey: "sk-test", connections: early });
  try {
    expect(await client.complete(body(), new AbortController().signal)).toMatchObject({ status: 200, attempts: 1 });
  } finally {
    await client.close();
  }
  // The request went on that connection, as its first bytes.
  expect(link.connections.map((c) => c.first)).toEqual(["POST /chat/completions HTTP/1.1"]);
  expect(sim.requests).toHaveLength(1);
});

it("a connection the server closed while it waited is not used: the request connects anew", async () => {
  sim = await startSimulator({ policy: "echo" });
  const link = await relay(sim.url, (client, n) => {
    if (n === 1) client.destroy();
    return n !== 1;
  });
  const early = opened(link.url);
  await link.accepted(1);
  // Time for the close to reach hel's side of the socket.
  await sleep(200);
  const client = createModelClient({ baseURL: link.url, apiKey: "sk-test", connections: early });
  try {
    expect(await client.complete(body(), new AbortController().signal)).toMatchObject({ status: 200, attempts: 1 });
  } finally {
    await client.close();
  }
  expect(link.connections.map((c) => c.first)).toEqual(["", "POST /chat/completions HTTP/1.1"]);
});

it("warm() opens a connection for the next request when the client has none open, and none while it has one", async () => {
  sim = await startSimulator({ policy: "echo" });
  const link = await relay(sim.url);
  const client = createModelClient({ baseURL: link.url, apiKey: "sk-test" });
  try {
    client.warm();
    await link.accepted(1);
    expect(await client.complete(body(), new AbortController().signal)).toMatchObject({ status: 200, attempts: 1 });
    // The answered request's connection is still open: the next request will use it.
    client.warm();
    await sleep(200);
    expect(link.connections).toHaveLength(1);
    // Gone (as undici closes one idle for a few seconds, or the server does): warm() opens another.
    link.drop();
    await sleep(200);
    client.warm();
    await link.accepted(2);
    expect(await client.complete(body(), new AbortController().signal)).toMatchObject({ status: 200, attempts: 1 });
  } finally {
    await client.close();
  }
  expect(link.connections.map((c) => c.first)).toEqual(["POST /chat/completions HTTP/1.1", "POST /chat/completions HTTP/1.1"]);
});

it("an early connection that failed is never reported: the request fails as it would without one", async () => {
  // A port nothing listens on.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const failure = async (withEarly: boolean): Promise<unknown> => {
    const client = createModelClient({ baseURL: url, apiKey: "sk-test", retryBaseMs: 1, connections: withEarly ? opened(url) : null });
    try {
      return await client.complete(body(), new AbortController().signal).then(
        () => null,
        (error: unknown) => error,
      );
    } finally {
      await client.close();
    }
  };
  const [alone, early] = [await failure(false), await failure(true)];
  expect(early).toBeInstanceOf(ModelError);
  expect((early as ModelError).kind).toBe((alone as ModelError).kind);
  expect((early as ModelError).message).toBe((alone as ModelError).message);
});

it("a connection still in its handshake neither keeps a process running nor outlives close()", async () => {
  // A server that takes the TCP connection and never answers TLS: the handshake never ends.
  const link = await relay("http://127.0.0.1:9", () => false);
  const https = link.url.replace("http:", "https:");
  // A process that only opens it, and would wait for the handshake's 30 s timeout if it were referenced.
  const module = pathToFileURL(join(ROOT, "out", "src", "model", "early-connection.js")).href;
  const child = spawn(process.execPath, ["--input-type=module", "-e", `import { apiConnections } from ${JSON.stringify(module)}; apiConnections(${JSON.stringify(https)}).open();`], { stdio: "ignore" });
  const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const ended = await new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  clearTimeout(killer);
  expect(ended).toEqual({ code: 0, signal: null });
  expect(link.connections).toHaveLength(1);
  // In this process: close() ends the socket though the handshake never finished.
  const early = opened(https);
  await link.accepted(2);
  early.close();
  await expect.poll(() => link.connections[1]!.closed).toBe(true);
});
