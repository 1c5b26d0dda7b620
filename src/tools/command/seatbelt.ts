// The sandbox-exec profile for a sandbox policy (macOS Seatbelt). Seatbelt applies the last rule that
// matches, so writes are denied everywhere, allowed in the private temporary directory (and the project
// and what a grant adds, when writable), then denied again on the protected paths and on the literal directories a rename of
// which would move a protected path out of the way.
import type { SandboxPolicy } from "./sandbox-policy.js";

export function seatbeltProfile(policy: SandboxPolicy, tmpDir: string): string {
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/") (subpath ${quote(tmpDir)}))`,
  ];
  if (policy.writable) {
    lines.push(`(allow file-write* ${[policy.projectDir, ...policy.granted].map((p) => `(subpath ${quote(p)})`).join(" ")})`);
    const denied = [`(literal ${quote(policy.projectDir)})`];
    for (const p of policy.protected) {
      denied.push(`(${p.kind === "file" || p.kind === "anchor" ? "literal" : "subpath"} ${quote(p.path)})`);
    }
    // What stays missing (kept-guard.ts) is denied here as a whole path: Seatbelt needs nothing to exist.
    for (const p of policy.kept) denied.push(`(subpath ${quote(p)})`);
    // And a `.hel` at any depth, made or not.
    denied.push(`(regex ${quote(`^${policy.projectDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(.*/)?\\.hel(/|$)`)})`);
    lines.push(`(deny file-write* ${denied.join(" ")})`);
  }
  if (!policy.network) lines.push("(deny network*)");
  return lines.join("\n") + "\n";
}

/** A Seatbelt (Scheme) string literal. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
