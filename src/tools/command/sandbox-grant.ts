// What an allow rule or an approved escalation grants a command: what the sandbox denied it, never a
// run without the sandbox. The network, and folders or files outside the project to write: for each
// path a refused write named, the path itself when it exists, else its nearest existing folder. Never
// granted: `/`, the home folder or a folder holding it or the project, the kernel's files (/proc, /sys,
// /dev), a folder or socket hidden from commands or one holding them, anything inside a place kept
// read-only (the user's config folder, start-up files, the files trusted programs run: a grant that
// holds one of those keeps it read-only, sandbox-policy.ts). Everything else the sandbox keeps
// (.hel/, git's settings, the user's start-up files, the host's sockets) it keeps under any grant.
import path from "node:path";
import { isInside } from "../paths.js";
import { hostSockets } from "./host-sockets.js";
import { realOrNull } from "./find-program.js";
import { userStartupFiles } from "./kept-places.js";
import type { SandboxGrant } from "../types.js";
import type { SandboxDenial } from "./sandbox-denial.js";

export const NETWORK_GRANT: SandboxGrant = Object.freeze({ network: true, writable: [] }) as SandboxGrant;

/** What may be granted for `denial`; null when nothing of it may. `readOnly`: the places kept read-only besides the start-up files. */
export function grantFor(denial: SandboxDenial, projectDir: string, readOnly: readonly string[], env: NodeJS.ProcessEnv = process.env): SandboxGrant | null {
  const kept = [...readOnly, ...userStartupFiles(env)].map((p) => realOrNull(p) ?? path.resolve(p));
  const writable: string[] = [];
  for (const named of denial.writes) {
    const place = existingPlace(named);
    if (place !== null && grantable(place, projectDir, env) && !kept.some((k) => isInside(k, place)) && !writable.includes(place)) writable.push(place);
  }
  return denial.network || writable.length > 0 ? { network: denial.network, writable } : null;
}

/** Both grants at once: what an earlier grant gave and what the sandbox denied since. */
export function joinGrants(a: SandboxGrant | null, b: SandboxGrant | null): SandboxGrant | null {
  if (a === null || b === null) return a ?? b;
  return { network: a.network || b.network, writable: [...new Set([...a.writable, ...b.writable])] };
}

/** "the network and writes to /var/cache/x": what the user is asked to grant, and the model told. */
export function describeGrant(grant: SandboxGrant): string {
  const writes = grant.writable.length === 0 ? [] : [`writes to ${grant.writable.join(", ")}`];
  return [...(grant.network ? ["the network"] : []), ...writes].join(" and ");
}

function grantable(p: string, projectDir: string, env: NodeJS.ProcessEnv): boolean {
  if (p === path.parse(p).root || isInside(projectDir, p) || isInside(p, projectDir)) return false;
  const home = env.HOME !== undefined && path.isAbsolute(env.HOME) ? (realOrNull(env.HOME) ?? env.HOME) : null;
  if (home !== null && isInside(p, home)) return false;
  const sockets = hostSockets(projectDir, env);
  return !["/proc", "/sys", "/dev", ...sockets.dirs, ...sockets.files].some((k) => isInside(k, p) || isInside(p, k));
}

/** The real path of `p` if it exists, else of its nearest existing folder. */
function existingPlace(p: string): string | null {
  for (let at = path.resolve(p); ; at = path.dirname(at)) {
    const real = realOrNull(at);
    if (real !== null) return real;
    if (at === path.dirname(at)) return null;
  }
}
