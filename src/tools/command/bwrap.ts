// The bubblewrap command line for a sandbox policy (Linux). Everything is mounted read-only, then the
// writable places (the project, what a grant adds) are bound over it, then the protected places are bound read-only over those; a path
// that is a mount point cannot be renamed or removed, which is what keeps `.git/hooks` protected against
// `mv .git x`. The host's Unix sockets are covered and their runtime directories hidden.
// Nothing the kernel exposes can be changed from inside, even when hel runs as root: the fresh /proc
// bubblewrap mounts is writable, so its kernel settings (`/proc/sys`: core_pattern, the hostname) and
// the other global files in it are bound read-only over it; the command runs in its own user
// namespace (no capability, not even in the bounding set, and none to be had back by making another
// namespace where bubblewrap can forbid it), UTS (hostname), IPC, PID and, without network, network
// namespaces, and dies with hel. A command that joins the session's shared network namespace
// (shared-network.ts) makes none of its own.
import type { SandboxPolicy } from "./sandbox-policy.js";

/** What the bubblewrap at hand supports beyond the options every version has. */
export interface BwrapFeatures {
  disableUserns: boolean;
}

const KERNEL_FILES = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"];

export function bwrapArgs(policy: SandboxPolicy, cwd: string, argv: readonly string[], features: BwrapFeatures, sharedNetwork = false): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const p of KERNEL_FILES) args.push("--ro-bind-try", p, p);
  args.push("--tmpfs", "/tmp");
  for (const dir of policy.sockets.dirs) args.push("--tmpfs", dir, "--remount-ro", dir);
  for (const file of policy.sockets.files) args.push("--ro-bind", "/dev/null", file);
  const project = policy.projectDir;
  // Bound even when read-only: a project under /tmp would otherwise vanish under the private /tmp.
  args.push(policy.writable ? "--bind" : "--ro-bind", project, project);
  if (policy.writable) {
    for (const p of policy.granted) args.push("--bind", p, p);
    for (const p of policy.protected) {
      if (p.kind === "anchor") args.push("--bind", p.path, p.path);
      else if (p.kind === "missing") args.push("--tmpfs", p.path, "--remount-ro", p.path);
      else args.push("--ro-bind", p.path, p.path);
    }
  }
  if (!policy.network && !sharedNetwork) args.push("--unshare-net");
  args.push("--unshare-user", ...(features.disableUserns ? ["--disable-userns"] : []), "--unshare-uts", "--unshare-ipc", "--unshare-pid");
  args.push("--die-with-parent", "--cap-drop", "ALL", "--chdir", cwd, "--", ...argv);
  return args;
}
