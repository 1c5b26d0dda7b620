// The built hel opens its connection to the API while its start does its own work, not once the
// first request is ready: a SessionStart hook (which runs before the first request) waits until a
// relay in front of the simulator has accepted a connection (over HTTPS: finished its handshake),
// and says so into the request. The request then goes out on that connection, and an untrusted
// project's base URL is never reached. In the interactive prompt, the connection opens when the user
// begins typing an instruction, and again for a later one once the last was closed.
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, connect, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { ROOT, runHel } from "../helpers/hel.js";
import { inTerminal } from "../helpers/terminal.js";
import { waitFor } from "../helpers/wait.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator | undefined;
const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  await sim?.close();
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A certificate for 127.0.0.1 that only these tests' hel trusts (NODE_EXTRA_CA_CERTS). */
const TLS = { cert: join(ROOT, "fixtures", "tls", "127.0.0.1.cert.pem"), key: join(ROOT, "fixtures", "tls", "127.0.0.1.key.pem") };

/**
 * A relay to `target` (plain, or ending TLS with `tls`) that writes `marker` when it has a connection
 * (over TLS, once its handshake is done), and keeps each one's first bytes.
 */
async function relay(target: string, marker: string, tls = false): Promise<{ url: string; firsts: string[]; drop(): void }> {
  const up = new URL(target);
  const firsts: string[] = [];
  const open = new Set<Socket>();
  const onSocket = (client: Socket) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    const at = firsts.push("") - 1;
    writeFileSync(marker, "accepted");
    const upstream = connect(Number(up.port), up.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
    }
    client.once("data", (data: Buffer) => (firsts[at] = data.toString("latin1").split("\r\n")[0]!));
    client.pipe(upstream).pipe(client);
  };
  const server = tls ? createTlsServer({ cert: readFileSync(TLS.cert), key: readFileSync(TLS.key) }, onSocket) : createServer(onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as { port: number }).port}`,
    firsts,
    drop: () => {
      for (const socket of open) socket.destroy();
    },
  };
}

/** A user config folder whose SessionStart hook prints whether `marker` appeared within `ms`. */
async function configWaitingFor(marker: string, ms: number): Promise<string> {
  const home = await tempProject();
  const script = join(home, "wait.mjs");
  await writeFile(
    script,
    `import { existsSync } from "node:fs";\nconst until = Date.now() + ${ms};\nwhile (!existsSync(${JSON.stringify(marker)}) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));\nprocess.stdout.write(existsSync(${JSON.stringify(marker)}) ? "the API's connection was open" : "no connection yet");\n`,
  );
  await mkdir(join(home, "hel"));
  await writeFile(join(home, "hel", "config.json"), JSON.stringify({ hooks: { SessionStart: [{ command: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}` }] } }));
  return home;
}

it.each([
  ["HTTP", false],
  ["HTTPS", true],
])("the connection is open before the start's hooks have run, and the first request goes out on it (%s)", async (_, tls) => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const marker = join(await tempProject(), "accepted");
  const api = await relay(sim.url, marker, tls);
  const run = await runHel({ args: ["-C", project, "hi"], baseUrl: api.url, env: { XDG_CONFIG_HOME: await configWaitingFor(marker, 10_000), NODE_EXTRA_CA_CERTS: TLS.cert } });
  expect(run.code).toBe(0);
  const first = sim.requests[0]!.body as ChatRequest;
  expect(first.messages.at(-1)).toEqual({ role: "user", content: "[#1] [SessionStart hook]\nthe API's connection was open\n\nhi" });
  expect(api.firsts).toEqual(["POST /chat/completions HTTP/1.1"]);
});

it("an untrusted project's base URL is not connected to, early or late", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const marker = join(await tempProject(), "accepted");
  const planted = await relay(sim.url, marker);
  await mkdir(join(project, ".hel"));
  await writeFile(join(project, ".hel", "config.json"), JSON.stringify({ "base-url": planted.url }));
  const run = await runHel({ args: ["-C", project, "hi"], baseUrl: sim.url, env: { XDG_CONFIG_HOME: await configWaitingFor(marker, 1000) } });
  expect(run.code).toBe(0);
  expect(planted.firsts).toEqual([]);
  expect((sim.requests[0]!.body as ChatRequest).messages.at(-1)).toEqual({ role: "user", content: "[#1] [SessionStart hook]\nno connection yet\n\nhi" });
});

it("in the interactive prompt, a connection opens as the user begins an instruction, and again once the last was closed", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  const api = await relay(sim.url, join(await tempProject(), "accepted"));
  const term = inTerminal(["-C", project], api.url);
  await term.until((screen) => screen.includes("›"), "the prompt");
  // The first request waits for the user: nothing is opened at the start.
  await sleep(300);
  expect(api.firsts).toEqual([]);
  term.type("h");
  await waitFor(() => api.firsts.length === 1, "a connection as the first key is typed");
  term.type("i\r");
  await term.until((screen) => screen.includes("echo: hi"), "the first answer");
  // The server closes it (or undici does, after a few idle seconds): the next instruction gets its own.
  api.drop();
  await sleep(300);
  term.type("again");
  await waitFor(() => api.firsts.length === 2, "a second connection as the next instruction is typed");
  term.type("\r");
  await term.until((screen) => screen.includes("echo: again"), "the second answer");
  term.type("\x04");
  expect(await term.exited).toBe(0);
  // Each request went out on the connection opened as it was typed.
  expect(api.firsts).toEqual(["POST /chat/completions HTTP/1.1", "POST /chat/completions HTTP/1.1"]);
  expect(sim.requests).toHaveLength(2);
});
