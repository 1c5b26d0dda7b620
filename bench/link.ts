// A network link in front of a local server, for the starts the bench times through it (startup.ts).
// Contract: each accepted connection gets its own upstream connection to the target; the client's
// bytes can leave only once the handshakes a real connection makes before it carries a request (TCP
// and TLS 1.3, two round trips from the accept) are done, and then reach upstream half a round trip
// after they left; the bytes back reach the client half a round trip after they came; an end or close
// is passed on the same way, after the data before it; an error on either side destroys both. Each
// direction is a queue released by a timer, so nothing leaves early and nothing overtakes.
import { connect, createServer, type AddressInfo, type Socket } from "node:net";

/** One direction of a connection: each act runs at its time, in the order pushed (times never decrease). */
interface Lane {
  push(at: number, act: () => void): void;
  stop(): void;
}

function lane(): Lane {
  const queue: { at: number; act: () => void }[] = [];
  let timer: NodeJS.Timeout | null = null;
  const arm = (): void => {
    timer = setTimeout(run, Math.max(0, Math.ceil(queue[0]!.at - performance.now())));
  };
  const run = (): void => {
    timer = null;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.at <= now) queue.shift()!.act();
    // A timer may fire a little before its time by performance.now(): it waits again for the rest.
    if (queue.length > 0) arm();
  };
  return {
    push(at, act) {
      queue.push({ at, act });
      if (timer === null) arm();
    },
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      queue.length = 0;
    },
  };
}

/** `from`'s data, end and close, passed on to `to` at the times `when` gives for the moment each came. */
function relay(from: Socket, to: Socket, path: Lane, when: (came: number) => number): void {
  from.on("data", (chunk: Buffer) => path.push(when(performance.now()), () => void (to.destroyed || to.write(chunk))));
  from.on("end", () => path.push(when(performance.now()), () => void (to.destroyed || to.writableEnded || to.end())));
  from.on("close", () =>
    path.push(when(performance.now()), () => {
      if (to.destroyed) return;
      // What was written before still goes out; then the connection is gone, as `from`'s is.
      if (to.writableFinished) to.destroy();
      else {
        to.once("finish", () => to.destroy());
        if (!to.writableEnded) to.end();
      }
    }),
  );
}

export async function linkProxy(target: string, rttMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const oneWay = rttMs / 2;
  const open = new Set<{ sockets: Socket[]; lanes: Lane[] }>();
  // Half-open both ways: a client's end must not cut off the answer still on its way back.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const accepted = performance.now();
    const up = connect({ host: upstream.hostname, port: Number(upstream.port), allowHalfOpen: true });
    const conn = { sockets: [client, up], lanes: [lane(), lane()] };
    open.add(conn);
    const [out, back] = conn.lanes as [Lane, Lane];
    relay(client, up, out, (came) => Math.max(came, accepted + 2 * rttMs) + oneWay);
    relay(up, client, back, (came) => came + oneWay);
    const fail = (): void => {
      client.destroy();
      up.destroy();
    };
    client.on("error", fail);
    up.on("error", fail);
    let closed = 0;
    const onClose = (): void => {
      if (++closed === 2) {
        for (const l of conn.lanes) l.stop();
        open.delete(conn);
      }
    };
    client.on("close", onClose);
    up.on("close", onClose);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const conn of open) {
          for (const l of conn.lanes) l.stop();
          for (const s of conn.sockets) s.destroy();
        }
        open.clear();
      }),
  };
}
