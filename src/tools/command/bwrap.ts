// The bubblewrap command line for a sandbox policy (Linux). Everything is mounted read-only, then the
// writable places are bound over it, then the protected places are bound read-only over those; a path
// that is a mount point cannot be renamed or removed, which is what keeps `.git/hooks` protected against
// `mv .git x`. The command runs in fresh PID and (without network) network namespaces, with no
// capabilities even when hel runs as root, and dies with hel.
import type { SandboxPolicy } from "./sandbox-policy.js";

export function bwrapArgs(policy: SandboxPolicy, cwd: string, argv: readonly string[]): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const project = policy.projectDir;
  // Bound even when read-only: a project under /tmp would otherwise vanish under the private /tmp.
  args.push(policy.writable ? "--bind" : "--ro-bind", project, project);
  if (policy.writable) {
    for (const p of policy.protected) {
      if (p.kind === "anchor") args.push("--bind", p.path, p.path);
      else if (p.kind === "missing") args.push("--tmpfs", p.path, "--remount-ro", p.path);
      else args.push("--ro-bind", p.path, p.path);
    }
  }
  if (!policy.network) args.push("--unshare-net");
  args.push("--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--chdir", cwd, "--", ...argv);
  return args;
}
