// A second hel process for lease tests. Takes the lease of a session (or the store lock), prints
// "held", and waits. Usage: node lease-child.mjs <compiled modules> <project> <id> <mode> [staleMs]
// Modes, for what happens on SIGINT/SIGTERM:
//   plain  no handler: Node's default, the process dies of the signal
//   exit   a handler that calls process.exit, as hel's CLI does after aborting the turn
//   drain  a handler that lets the event loop empty without releasing anything
//   close  a handler that releases the lease, then lets the process end
//   store  hold the store lock (.hel/.sessions.lock) instead of a lease
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, project, id, mode, staleMs] = process.argv.slice(2);
const { acquireLease, withStoreLock } = await import(pathToFileURL(join(modules, "session/lease.js")).href);
const timing = staleMs ? { stale: Number(staleMs), update: Math.max(1000, Number(staleMs) / 2) } : undefined;
const keepAlive = setInterval(() => undefined, 1000);

if (mode === "store") {
  await withStoreLock(project, async () => {
    process.stdout.write("held\n");
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.HOLD_MS ?? 60_000)));
  });
  clearInterval(keepAlive);
} else {
  const lease = await acquireLease(project, id, { create: true, ...(timing ? { timing } : {}) });
  const onSignal = (signal) => {
    if (mode === "exit") process.exit(signal === "SIGINT" ? 130 : 143);
    if (mode === "drain") clearInterval(keepAlive);
    if (mode === "close") void lease.release().then(() => clearInterval(keepAlive));
  };
  if (mode !== "plain") for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, onSignal);
  process.stdout.write("held\n");
}
