// `hel web`'s server: node:http on 127.0.0.1 only. Every request passes the guard first (guard.ts:
// the token, the Host header, GET only), then one of four routes, all reads:
//   /                   the project's sessions (pages.ts)
//   /s/<id>             a session's frame: the rendered page, reloaded when the session is saved
//   /s/<id>/page        the session's page, from the one renderer `hel sessions export` uses
//   /s/<id>/events      server-sent events: `changed` each time the session's snapshot changes
// Nothing here writes a file: the session store is read as `hel sessions show` reads it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { lstat } from "node:fs/promises";
import { listSessions } from "../../session/catalog.js";
import { isValidSessionId, sessionPaths } from "../../session/paths.js";
import { checkRequest } from "./guard.js";
import { framePage, listPage, messagePage, type Page } from "./pages.js";
import { snapshotVersion, watchSession } from "./session-watch.js";

export interface ViewerOptions {
  projectDir: string;
  /** 0: any free port. */
  port: number;
  token: string;
  /** The session's page as the shared renderer makes it: a whole HTML document with its own policy. */
  renderSession(id: string): Promise<string>;
}

export interface Viewer {
  /** The address to open, token included. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** An idle event stream says it is alive this often, so proxies and the browser keep it open. */
const HEARTBEAT_MS = 15_000;

const COMMON_HEADERS = {
  "cache-control": "no-store",
  // The token is in every URL: a link followed out of the page must not carry it in a Referer.
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

/** A path segment as text; "" (no session) when it is not valid percent-encoding. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

function sendPage(res: ServerResponse, status: number, page: Page): void {
  res.writeHead(status, { ...COMMON_HEADERS, "content-type": "text/html; charset=utf-8", "content-security-policy": page.csp });
  res.end(page.html);
}

function sendText(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8", ...extra });
  res.end(`${text}\n`);
}

export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const { projectDir, token } = options;
  const streams = new Set<ServerResponse>();
  let port = options.port;

  const sessionExists = async (id: string): Promise<boolean> =>
    isValidSessionId(id) &&
    (await lstat(sessionPaths(projectDir, id).snapshot).then(
      (i) => i.isFile(),
      () => false,
    ));

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = checkRequest(req, token, port);
    if (!verdict.ok) return sendText(res, verdict.status, verdict.reason, verdict.status === 405 ? { allow: "GET" } : {});
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/") return sendPage(res, 200, listPage(projectDir, await listSessions(projectDir), token));
    const match = /^\/s\/([^/]+)(\/page|\/events)?$/.exec(url.pathname);
    const id = match ? decoded(match[1]!) : "";
    if (!match || !(await sessionExists(id))) return sendPage(res, 404, messagePage("No such session", `There is no saved session ${id || url.pathname} in this project.`, token));
    if (match[2] === "/events") return streamChanges(id, url.searchParams.get("since") ?? "", req, res);
    if (match[2] === "/page") {
      const html = await options.renderSession(id);
      // The page brings its own policy (a meta element); this one only keeps it inside the viewer's frame.
      res.writeHead(200, { ...COMMON_HEADERS, "content-type": "text/html; charset=utf-8", "content-security-policy": "frame-ancestors 'self'" });
      return void res.end(html);
    }
    return sendPage(res, 200, framePage(id, await snapshotVersion(projectDir, id), token));
  }

  async function streamChanges(id: string, since: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.writeHead(200, { ...COMMON_HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
    res.write("retry: 2000\n\n");
    streams.add(res);
    const stop = await watchSession(projectDir, id, since, (version) => res.write(`event: changed\ndata: ${version}\n\n`));
    const heartbeat = setInterval(() => res.write(": alive\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    const end = () => {
      clearInterval(heartbeat);
      stop?.();
      streams.delete(res);
    };
    req.once("close", end);
    if (!stop) res.end();
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.end();
      const message = error instanceof Error ? error.message : String(error);
      sendPage(res, 500, messagePage("This session cannot be shown", message, token));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${encodeURIComponent(token)}`,
    port,
    close: async () => {
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
