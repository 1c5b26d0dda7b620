// `hel web`'s server over real HTTP (undici, which sends whatever Host header it is given): the token
// and the Host header are checked on every path, only GET is answered, it listens on 127.0.0.1 alone,
// a session's event stream says `changed` when the session is saved again, and nothing it serves
// changes a file of the project.
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { parseArgs } from "../../src/cli/options.js";
import { openViewer } from "../../src/cli/web-command.js";
import type { Viewer } from "../../src/cli/web/server.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { sessionIdOf } from "../helpers/simulators.js";
import { tempProject } from "../helpers/temp-project.js";
import { treeFingerprint } from "../helpers/tree-fingerprint.js";

let sim: Simulator;
let project: string;
let id: string;
let viewer: Viewer;
let token: string;
let printed = "";

beforeAll(async () => {
  sim = await startSimulator({});
  project = await tempProject();
  const run = await runHelInProcess({ args: ["-C", project, "say hello"], baseUrl: sim.url });
  id = sessionIdOf(run.stderr)!;
  const invocation = parseArgs(["-C", project, "web"], {}, "test");
  if (invocation.kind !== "web") throw new Error("not hel web");
  viewer = await openViewer(invocation, { stdout: { write: (text: string) => (printed += text) }, env: {} });
  token = new URL(viewer.url).searchParams.get("token")!;
});

afterAll(async () => {
  await viewer?.close();
  await sim?.close();
});

const get = (path: string, init: { host?: string; method?: "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "HEAD" | "OPTIONS" } = {}) =>
  request(`http://127.0.0.1:${viewer.port}${path}`, { method: init.method ?? "GET", headers: { host: init.host ?? `127.0.0.1:${viewer.port}` } });

async function read(path: string, init: Parameters<typeof get>[1] = {}) {
  const res = await get(path, init);
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe("hel web", () => {
  it("prints the one URL that opens it: 127.0.0.1, its port, and a long random token", () => {
    expect(printed).toContain(`http://127.0.0.1:${viewer.port}/?token=`);
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it("serves the list and the session with the token and this server's Host, by 127.0.0.1 or localhost", async () => {
    const list = await read(`/?token=${token}`);
    expect(list.status).toBe(200);
    expect(list.body).toContain(`href="/s/${id}?token=${token}"`);
    expect(list.headers["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'none';/);
    expect(list.headers["referrer-policy"]).toBe("no-referrer");
    expect((await read(`/?token=${token}`, { host: `localhost:${viewer.port}` })).status).toBe(200);
    const page = await read(`/s/${id}/page?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("say hello");
    expect(page.headers["content-security-policy"]).toBe("frame-ancestors 'self'");
  });

  it("refuses every path without the token, or with another one, with 403", async () => {
    const wrong = token.replace(/^./, (c) => (c === "A" ? "B" : "A"));
    for (const path of ["/", `/s/${id}`, `/s/${id}/page`, `/s/${id}/events`, "/nothing"]) {
      for (const query of ["", `?token=${wrong}`, `?token=${token.slice(0, -1)}`, `?t=${token}`, `?token=`]) {
        const res = await read(`${path}${query}`);
        expect(res.status, `${path}${query}`).toBe(403);
        expect(res.body).not.toContain("say hello");
      }
    }
  });

  it("refuses a request whose Host header names anything but this server (DNS rebinding), token or not", async () => {
    for (const host of [
      "evil.example",
      `evil.example:${viewer.port}`,
      `127.0.0.1:${viewer.port + 1}`,
      `localhost:${viewer.port + 1}`,
      "127.0.0.1",
      `0.0.0.0:${viewer.port}`,
      `[::1]:${viewer.port}`,
      `127.0.0.1.nip.io:${viewer.port}`,
    ]) {
      const res = await read(`/s/${id}/page?token=${token}`, { host });
      expect(res.status, host).toBe(403);
      expect(res.body).not.toContain("say hello");
    }
  });

  it("answers GET only: every other method is 405, with the token", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"] as const) {
      const res = await get(`/s/${id}?token=${token}`, { method });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe("GET");
      await res.body.dump();
    }
  });

  it("listens on 127.0.0.1 only: no other address of this machine reaches it", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === "IPv4" && a.address !== "127.0.0.1")
      .map((a) => a!.address);
    for (const address of [...others, "127.0.0.2"]) {
      await expect(request(`http://${address}:${viewer.port}/?token=${token}`, { headers: { host: `127.0.0.1:${viewer.port}` } })).rejects.toThrow(/ECONNREFUSED|connect/);
    }
  });

  it("--port takes a port number; a port in use is one line saying what to do", async () => {
    for (const port of ["0", "65536", "http", "8080.5"]) {
      expect(() => parseArgs(["web", "--port", port], {}, "test")).toThrow(`--port takes a port number from 1 to 65535, not "${port}" — or leave it out for a free one`);
    }
    const taken = parseArgs(["-C", project, "web", "--port", String(viewer.port)], {}, "test");
    if (taken.kind !== "web") throw new Error("not hel web");
    await expect(openViewer(taken, { stdout: { write: () => true }, env: {} })).rejects.toMatchObject({
      exitCode: 1,
      message: `port ${viewer.port} is in use — choose another with --port, or leave it out for a free one`,
    });
  });

  it("an unknown session is 404, a session id that climbs out is no session", async () => {
    expect((await read(`/s/nope?token=${token}`)).status).toBe(404);
    expect((await read(`/s/..%2F..%2Fetc?token=${token}`)).status).toBe(404);
    expect((await read(`/s/%E0%A4%A?token=${token}`)).status).toBe(404);
  });

  it("tells an open event stream when the session is saved again, and nothing it serves changes the project", async () => {
    const before = await treeFingerprint(project);
    const frame = await read(`/s/${id}?token=${token}`);
    const version = /data-version="([^"]+)"/.exec(frame.body)![1]!;
    const events = await get(`/s/${id}/events?token=${token}&since=${encodeURIComponent(version)}`);
    expect(events.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    let received = "";
    const changed = new Promise<void>((resolve) => {
      events.body.on("data", (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes("event: changed")) resolve();
      });
    });
    for (const method of ["POST", "PUT", "DELETE"] as const) await (await get(`/s/${id}?token=${token}`, { method })).body.dump();
    await read(`/?token=${token}`);
    await read(`/s/${id}/page?token=${token}`);
    expect(await treeFingerprint(project)).toEqual(before);
    expect(received).not.toContain("event: changed");

    const again = await runHelInProcess({ args: ["-C", project, "--resume", id, "say it again"], baseUrl: sim.url });
    expect(again.code).toBe(0);
    await changed;
    events.body.destroy();
    expect((await read(`/s/${id}/page?token=${token}`)).body).toContain("say it again");
  });
});
