// Which sandbox program confines commands on this machine, and the process to start for a command in
// it: bubblewrap on Linux, sandbox-exec on macOS. A program found in a directory inside the project is
// ignored: the project could have planted its own `bwrap` that confines nothing.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bwrapArgs } from "./bwrap.js";
import { isInside } from "../paths.js";
import { findOnPath, isExecutable } from "./find-program.js";
import type { SandboxPolicy } from "./sandbox-policy.js";
import { seatbeltProfile } from "./seatbelt.js";

export interface SandboxProgram {
  kind: "bwrap" | "sandbox-exec";
  path: string;
}

const SEATBELT = "/usr/bin/sandbox-exec";

export function findSandboxProgram(projectDir: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SandboxProgram | null {
  if (platform === "darwin") return isExecutable(SEATBELT) ? { kind: "sandbox-exec", path: SEATBELT } : null;
  if (platform !== "linux") return null;
  const bwrap = findOnPath("bwrap", env, (dir) => !isInside(projectDir, dir));
  return bwrap === null ? null : { kind: "bwrap", path: bwrap };
}

/** What to do on a machine without a sandbox program, for a person or for the model. */
export function installAdvice(platform: NodeJS.Platform = process.platform): string {
  return platform === "linux"
    ? "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) or use --access full to run commands without a sandbox"
    : `hel has no sandbox for ${platform}; use --access full to run commands without one`;
}

export interface Launch {
  file: string;
  args: string[];
  /** Variables the sandbox needs set in the command's environment. */
  env: Record<string, string>;
  /** Removes what the launch created; never throws. */
  cleanup(): Promise<void>;
}

/** The process that runs `argv` in `cwd` under `policy`. */
export async function sandboxedLaunch(program: SandboxProgram, policy: SandboxPolicy, cwd: string, argv: readonly string[]): Promise<Launch> {
  if (program.kind === "bwrap") {
    // The private /tmp is the place to write temporary files, wherever hel's own TMPDIR points.
    return { file: program.path, args: bwrapArgs(policy, cwd, argv), env: { TMPDIR: "/tmp" }, cleanup: async () => undefined };
  }
  // Seatbelt cannot give the command a /tmp of its own: it gets a fresh directory as TMPDIR instead.
  const tmp = await realpath(await mkdtemp(path.join(tmpdir(), "hel-command-")));
  return {
    file: program.path,
    args: ["-p", seatbeltProfile(policy, tmp), "--", ...argv],
    env: { TMPDIR: tmp },
    cleanup: () => rm(tmp, { recursive: true, force: true }).catch(() => undefined),
  };
}
