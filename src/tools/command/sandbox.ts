// Which sandbox program confines commands on this machine, and the process to start for a command in
// it: bubblewrap on Linux, sandbox-exec on macOS. bubblewrap is taken from the system's directories
// only: the project could have planted its own `bwrap` that confines nothing. What options it supports
// is asked once per path, the first time it is needed.
import { spawnSync } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bwrapArgs, type BwrapFeatures } from "./bwrap.js";
import { findSystemProgram, isExecutable } from "./find-program.js";
import type { SandboxPolicy } from "./sandbox-policy.js";
import { seatbeltProfile } from "./seatbelt.js";
import { sharedNetworkPrefix } from "./shared-network.js";

export interface SandboxProgram {
  kind: "bwrap" | "sandbox-exec";
  path: string;
}

const SEATBELT = "/usr/bin/sandbox-exec";

export function findSandboxProgram(projectDir: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SandboxProgram | null {
  if (platform === "darwin") return isExecutable(SEATBELT) ? { kind: "sandbox-exec", path: SEATBELT } : null;
  if (platform !== "linux") return null;
  const bwrap = findSystemProgram("bwrap", env, projectDir);
  return bwrap === null ? null : { kind: "bwrap", path: bwrap };
}

const featuresByPath = new Map<string, BwrapFeatures>();

export function bwrapFeatures(bwrap: string): BwrapFeatures {
  let features = featuresByPath.get(bwrap);
  if (features === undefined) {
    const help = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 5000 });
    features = { disableUserns: `${help.stdout}`.includes("--disable-userns") };
    featuresByPath.set(bwrap, features);
  }
  return features;
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
    // Without the network, a command joins the loopback the session's background jobs share, once there is one.
    const shared = policy.network ? null : sharedNetworkPrefix();
    const args = bwrapArgs(policy, cwd, argv, bwrapFeatures(program.path), shared !== null);
    const [file, ...rest] = shared === null ? [program.path, ...args] : [...shared, program.path, ...args];
    // The private /tmp is the place to write temporary files, wherever hel's own TMPDIR points.
    return { file: file!, args: rest, env: { TMPDIR: "/tmp" }, cleanup: async () => undefined };
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
