// Whether a failed sandboxed command was stopped by the sandbox itself, read from what it printed:
// a lookup or connection that found no network (the sandbox has none unless --network), or a write
// refused by a read-only file system outside the project (inside it only `.hel/` and git's hooks and
// config are read-only, and those stay so even outside the sandbox's reach: no escalation frees them).
// Pure: the output and the project's path in, the reason or null out.
import path from "node:path";
import { isInside } from "../paths.js";

export type SandboxDenial = "network" | "outside write";

// curl and git: "Could not resolve host"; node: getaddrinfo EAI_AGAIN / ENOTFOUND, connect ENETUNREACH;
// python, wget: "Temporary failure in name resolution"; ping, ssh: "Network is unreachable".
const NO_NETWORK = /Could not resolve host|Temporary failure in name resolution|Name or service not known|\bEAI_AGAIN\b|getaddrinfo ENOTFOUND|\bENETUNREACH\b|Network is unreachable/i;
const READ_ONLY = /Read-only file system|\bEROFS\b/;
const NOT_PERMITTED = /Permission denied|\bEACCES\b|Operation not permitted|\bEPERM\b/;
/** The words of a line that look like paths: they hold a slash (quotes, colons and commas split words). */
const pathsIn = (line: string, cwd: string): string[] =>
  line
    .split(/[\s'"\u2018\u2019`:,()]+/)
    .filter((word) => word.includes("/"))
    .map((word) => path.resolve(cwd, word));

/** Why the sandbox stopped a command run in `cwd`, from what it printed; null when nothing says it did. */
export function sandboxDenial(output: string, projectDir: string, cwd: string, network: boolean): SandboxDenial | null {
  const lines = output.split("\n");
  if (!network && lines.some((line) => NO_NETWORK.test(line))) return "network";
  for (const line of lines) {
    const readOnly = READ_ONLY.test(line);
    if (!readOnly && !NOT_PERMITTED.test(line)) continue;
    const paths = pathsIn(line, cwd);
    // A protected path in the project stays read-only whatever the user answers: not a case for asking.
    if (paths.some((p) => isInside(projectDir, p))) continue;
    // A permission error is the sandbox's only when it names a place outside the project.
    if (readOnly || paths.length > 0) return "outside write";
  }
  return null;
}
