// Whether a failed sandboxed command was stopped by the sandbox itself, read from what it printed:
// a lookup or connection that found no network (the sandbox has none unless --network), or a write
// refused by a read-only file system outside the project (inside it only `.hel/` and git's hooks and
// config are read-only, and those stay so whatever is granted: no escalation frees them). What it
// names is what an escalation may grant (sandbox-grant.ts). Pure: the output and the project's path
// in, what was denied or null out.
import path from "node:path";
import { isInside } from "../paths.js";

export interface SandboxDenial {
  network: boolean;
  /** The paths outside the project that writes to were refused, as named (resolved from the command's folder). */
  writes: string[];
}

// curl and git: "Could not resolve host"; node: getaddrinfo EAI_AGAIN / ENOTFOUND, connect ENETUNREACH;
// python, wget: "Temporary failure in name resolution"; ping, ssh: "Network is unreachable".
const NO_NETWORK = /Could not resolve host|Temporary failure in name resolution|Name or service not known|\bEAI_AGAIN\b|getaddrinfo ENOTFOUND|\bENETUNREACH\b|Network is unreachable/i;
const READ_ONLY = /Read-only file system|\bEROFS\b/;
const NOT_PERMITTED = /Permission denied|\bEACCES\b|Operation not permitted|\bEPERM\b/;
/**
 * The words of a line that look like paths: they hold a slash (quotes, colons and commas split words).
 * The shell's own name before a message of its (`/bin/bash: line 1: …`, `sh: 1: …`) is not one.
 */
const pathsIn = (line: string, cwd: string): string[] =>
  line
    .replace(/^\S+: (?:line )?\d+: /, "")
    .split(/[\s'"\u2018\u2019`:,()]+/)
    .filter((word) => word.includes("/"))
    .map((word) => path.resolve(cwd, word));

/** What the sandbox denied a command run in `cwd`, from what it printed; null when nothing says it did. */
export function sandboxDenial(output: string, projectDir: string, cwd: string, network: boolean): SandboxDenial | null {
  const lines = output.split("\n");
  const denied: SandboxDenial = { network: !network && lines.some((line) => NO_NETWORK.test(line)), writes: [] };
  for (const line of lines) {
    if (!READ_ONLY.test(line) && !NOT_PERMITTED.test(line)) continue;
    const paths = pathsIn(line, cwd);
    // A protected path in the project stays read-only whatever the user answers: not a case for asking.
    if (paths.length === 0 || paths.some((p) => isInside(projectDir, p))) continue;
    for (const p of paths) if (!denied.writes.includes(p)) denied.writes.push(p);
  }
  return denied.network || denied.writes.length > 0 ? denied : null;
}
