// The sandbox-exec profile for a sandbox policy (macOS Seatbelt). Seatbelt applies the last rule that
// matches, so writes are denied everywhere, allowed in the private temporary directory (and the project,
// when writable), then denied again on the protected paths and on the literal directories a rename of
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
    lines.push(`(allow file-write* (subpath ${quote(policy.projectDir)}))`);
    const denied = [`(literal ${quote(policy.projectDir)})`];
    for (const p of policy.protected) {
      denied.push(`(${p.kind === "file" || p.kind === "anchor" ? "literal" : "subpath"} ${quote(p.path)})`);
    }
    lines.push(`(deny file-write* ${denied.join(" ")})`);
  }
  if (!policy.network) lines.push("(deny network*)");
  return lines.join("\n") + "\n";
}

/** A Seatbelt (Scheme) string literal. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
