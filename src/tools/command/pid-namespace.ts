// Under --access full a command runs without a sandbox, but in a PID namespace of its own wherever
// bubblewrap can make one: when the command's shell exits, or when the call ends it, the kernel ends
// every process in that namespace, whatever session or group it moved to (`setsid`, double forks,
// `nohup`), so nothing it started outlives the call. Everything else is the machine's: the whole file
// system, /dev, the network, and for root every capability; the namespace has a /proc of its own, so
// the command sees its processes by the numbers it knows them by. bubblewrap ends the namespace when
// the command's shell exits or bubblewrap itself is ended with the command's process group; its parent
// is a shell, not hel, so that, as without a namespace, a command outlives a hel killed with SIGKILL,
// its session kept in use until it ends. A user
// other than root gets a user namespace that maps them to themselves, where setuid programs such as
// sudo do not work. Whether this works here (inside a container it may not) is tried, once when it
// does, again after a while when it did not (a busy machine may refuse a namespace for a moment); where
// it does not, the command runs in its process group only. A background job must not outlive hel: its
// bubblewrap is hel's own child, without the shell, and so dies with it.
import { spawnSync } from "node:child_process";

const SHELL_BETWEEN = 4;
const RETRY_MS = 60_000;
const tried = new Map<string, { prefix: string[] | null; at: number }>();

/** The argv to put before a command's own to run it in a PID namespace; null where none can be made. */
export function pidNamespacePrefix(bwrap: string): string[] | null {
  const last = tried.get(bwrap);
  if (last !== undefined && (last.prefix !== null || Date.now() - last.at < RETRY_MS)) return last.prefix;
  const caps = process.getuid?.() === 0 ? ["--cap-add", "ALL"] : [];
  // sh between hel and bubblewrap, so that the namespace dies with bubblewrap but not with hel.
  const candidate = ["/bin/sh", "-c", '"$@"; exit $?', "sh", bwrap, "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", ...caps, "--"];
  const probe = spawnSync(candidate[0]!, [...candidate.slice(1), "true"], { stdio: "ignore", timeout: 10_000 });
  const prefix = probe.status === 0 ? candidate : null;
  tried.set(bwrap, { prefix, at: Date.now() });
  return prefix;
}

/** pidNamespacePrefix without the shell between hel and bubblewrap: what runs in it dies with hel. */
export function jobNamespacePrefix(bwrap: string): string[] | null {
  return pidNamespacePrefix(bwrap)?.slice(SHELL_BETWEEN) ?? null;
}
