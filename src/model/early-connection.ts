// The connections to the API: made by undici's connector as its Agent would make them, and opened
// before a request needs one when hel knows one will follow: while a start does its own work (the
// project's files, the session, the MCP servers), or while the user types an instruction. The TCP
// and TLS handshakes are then done by the time the request is ready, and it goes out at once;
// without, it pays them after everything else. Contract:
// - An early connection is a socket only: not one byte of HTTP, so neither the key nor anything of
//   the project, goes on it until a request does.
// - At most one is open and unused at a time, and the next connection the Agent asks for to the base
//   URL's origin is that one while it is open; otherwise (it closed, failed, or another origin is
//   asked for) a new one is made exactly as if there were none. Its own failure is never reported:
//   the request that would have used it connects anew and reports that.
// - It never keeps the process running: unreferenced until a request takes it, and destroyed by
//   close() when none did.
import { Socket } from "node:net";
import { buildConnector } from "undici";

/** How long a connection may take before the request that waits for it fails with a connection error. */
const CONNECT_TIMEOUT_MS = 30_000;

type Connector = buildConnector.connector;

export interface ApiConnections {
  /** The base URL's origin, as undici's Agent names its pool; null when the URL is not http(s). */
  readonly origin: string | null;
  /** The connector for the model client's Agent: the early connection first, then new ones. */
  readonly connect: Connector;
  /** Opens a connection for the next request, unless one is open and unused or its URL is not http(s). */
  open(): void;
  /** Ends the unused connection, and opens none after. */
  close(): void;
}

/** An early connection: the socket undici's connector returned, and what became of it. */
interface Early {
  socket: Socket | null;
  /** The connected socket, or null once it failed. */
  ready: Promise<Socket | null>;
}

export function apiConnections(baseURL: string): ApiConnections {
  // hel's requests are HTTP/1.1 only (model/client.ts).
  const connector = buildConnector({ timeout: CONNECT_TIMEOUT_MS, allowH2: false });
  const url = URL.canParse(baseURL) ? new URL(baseURL) : null;
  const target = url && (url.protocol === "https:" || url.protocol === "http:") ? url : null;
  let early: Early | null = null;
  let closed = false;
  const origin = target?.origin ?? null;
  return {
    origin,
    connect(options, callback) {
      const taken = early;
      // undici names the host of every connection it asks for.
      if (!taken || `${options.protocol}//${options.host ?? ""}` !== origin) return connector(options, callback);
      early = null;
      // Referenced while the request waits for it: an unreferenced socket alone lets the process end.
      taken.socket?.ref();
      void taken.ready.then((socket) => {
        // One the server closed while it waited is left: no request is sent on it.
        if (!socket || socket.destroyed) return connector(options, callback);
        callback(null, socket);
      });
    },
    open() {
      if (closed || !target || (early && !early.socket?.destroyed)) return;
      let returned: unknown;
      const ready = new Promise<Socket | null>((resolve) => {
        // undici's own request path gives the connector the URL's hostname without IPv6 brackets.
        const hostname = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
        returned = (connector as (...args: Parameters<Connector>) => unknown)({ hostname, host: target.host, protocol: target.protocol, port: target.port }, (error, connected) => resolve(error ? null : connected));
      });
      // undici's connector returns the socket it is connecting (its type says nothing): unreferenced at
      // once, so that a run that ends before its request does not wait for a slow handshake.
      const socket = returned instanceof Socket ? returned : null;
      socket?.unref();
      early = { socket, ready };
    },
    close() {
      closed = true;
      early?.socket?.destroy();
      early = null;
    },
  };
}
