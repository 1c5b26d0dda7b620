// The connection to the API opened while a start does its own work (the project's files, the
// session, the MCP servers), so that the TCP and TLS handshakes are done by the time the first
// request is ready and it goes out at once; a start that opens none pays them after all its work.
// Contract:
// - It is a socket only: not one byte of HTTP, so neither the key nor anything of the project, goes
//   on it until a request does.
// - The model client's first connection to the base URL's origin is this one while it is open;
//   otherwise (it closed, failed, or another origin is asked for) a new one is made exactly as if
//   there were none. Its own failure is never reported: the request that would have used it
//   connects anew and reports that.
// - It never keeps the process running: unreferenced until a request takes it, and destroyed by
//   close() when none did.
import { Socket } from "node:net";
import { buildConnector } from "undici";

/** How long a connection may take before the request that waits for it fails with a connection error. */
const CONNECT_TIMEOUT_MS = 30_000;

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;

export interface EarlyConnection {
  /** The connector for the model client's Agent: the early socket first, then new ones. */
  readonly connect: Connector;
  /** Ends the early socket if no request has taken it. */
  close(): void;
}

/** What undici's Agent would build for itself: hel's requests are HTTP/1.1 only (model/client.ts). */
export const apiConnector = (): Connector => buildConnector({ timeout: CONNECT_TIMEOUT_MS, allowH2: false });

/** Starts the connection to `baseURL`'s origin; null when it is not an http(s) URL (the request then says what is wrong). */
export function openEarlyConnection(baseURL: string): EarlyConnection | null {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const connector = apiConnector();
  const origin = url.origin;
  let early: Socket | null = null;
  let connecting: unknown;
  /** Settles once the early socket is connected (true) or has failed (false). */
  const ready = new Promise<boolean>((resolve) => {
    // undici's own request path gives the connector the URL's hostname without IPv6 brackets.
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    connecting = (connector as (...args: Parameters<Connector>) => unknown)({ hostname, host: url.host, protocol: url.protocol, port: url.port }, (error, socket) => {
      if (error || !socket) return resolve(false);
      early = socket;
      resolve(true);
    });
  });
  // undici's connector returns the socket it is connecting (its type says nothing): unreferenced at
  // once, so that a run that ends before its first request does not wait for a slow handshake.
  if (connecting instanceof Socket) connecting.unref();
  const take = async (options: ConnectOptions): Promise<Socket | null> => {
    if (originOf(options) !== origin) return null;
    // Referenced while the request waits for it: an unreferenced socket alone lets the process end.
    if (connecting instanceof Socket) connecting.ref();
    if (!(await ready)) return null;
    const socket = early;
    early = null;
    // One the server closed while it waited is left: no request is sent on it.
    if (!socket || socket.destroyed) return null;
    // The request's now: undici references and unreferences it from here on.
    connecting = null;
    socket.ref();
    return socket;
  };
  let offered = false;
  return {
    connect(options, callback) {
      // Only the first connection asked for may be the early one; undici asks again for every other.
      if (offered) return connector(options, callback);
      offered = true;
      void take(options).then((socket) => (socket ? callback(null, socket) : connector(options, callback)));
    },
    close() {
      offered = true;
      if (connecting instanceof Socket) connecting.destroy();
      early = null;
    },
  };
}

/** The origin undici asks the connector for, as URL.origin spells it. */
function originOf({ protocol, host, hostname, port }: ConnectOptions): string {
  if (host) return `${protocol}//${host}`;
  const name = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `${protocol}//${name}${port ? `:${port}` : ""}`;
}
