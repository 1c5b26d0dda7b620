// Under --access full a command runs without a sandbox, but in a PID namespace of its own wherever
// bubblewrap can make one: when the command's shell exits, or when the call ends it, the kernel ends
// every process in that namespace, whatever session or group it moved to (`setsid`, double forks,
// `nohup`), so nothing it started outlives the call. Everything else is the machine's: the whole file
// system, /dev, the network, and for root every capability; the namespace has a /proc of its own, so
// the command sees its processes by the numbers it knows them by. The namespace's init stays in the
// command's process group, so ending the group ends the namespace; and as without one, a command
// outlives a hel killed with SIGKILL, its session kept in use until it ends. A user
// other than root gets a user namespace that maps them to themselves, where setuid programs such as
// sudo do not work. Whether this works here (inside a container it may not) is tried once; where it
// does not, the command runs in its process group only.
import { spawnSync } from "node:child_process";

const prefixes = new Map<string, string[] | null>();

/** The argv to put before a command's own to run it in a PID namespace; null where none can be made. */
export function pidNamespacePrefix(bwrap: string): string[] | null {
  let prefix = prefixes.get(bwrap);
  if (prefix === undefined) {
    const caps = process.getuid?.() === 0 ? ["--cap-add", "ALL"] : [];
    const candidate = [bwrap, "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--unshare-pid", ...caps, "--"];
    const probe = spawnSync(bwrap, [...candidate.slice(1), "true"], { stdio: "ignore", timeout: 5000 });
    prefix = probe.status === 0 ? candidate : null;
    prefixes.set(bwrap, prefix);
  }
  return prefix;
}
