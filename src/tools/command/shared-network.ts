// The network namespace a process's sandboxed commands share once it has background jobs, so that a
// later command reaches a server a job started on the loopback, and nothing beyond it. bubblewrap
// cannot join a namespace, so a holder keeps one: a bubblewrap of its own (a user namespace and a
// network namespace with only the loopback, up) that waits on a pipe from hel; each command then runs
// `nsenter` into the holder's user and network namespaces, which execs the command's own bubblewrap in
// place, so that bubblewrap stays hel's child and dies with it. The holder dies with hel too (the pipe
// closes, and bubblewrap's --die-with-parent). Entering needs no privilege: the holder's user namespace
// is hel's user's own, and for a user other than root the capabilities it gives in there are lost at
// the exec of bubblewrap, which starts a namespace of its own inside it, without capabilities.
// Made on the first background job; where it cannot be made (no nsenter, namespaces refused) null, and
// each command keeps a network namespace of its own.
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { findSystemProgram } from "./find-program.js";

let holder: Promise<string[] | null> | null = null;
let made: string[] | null = null;

/** The argv that puts a bubblewrap command line into the shared network namespace; null while there is none. */
export function sharedNetworkPrefix(): string[] | null {
  return made;
}

/** The shared network namespace's argv prefix, made now if need be; null where none can be made. */
export function startSharedNetwork(bwrap: string, projectDir: string): Promise<string[] | null> {
  holder ??= makeHolder(bwrap, projectDir).then((prefix) => (made = prefix));
  return holder;
}

async function makeHolder(bwrap: string, projectDir: string): Promise<string[] | null> {
  const nsenter = findSystemProgram("nsenter", process.env, projectDir);
  if (nsenter === null) return null;
  const child = spawn(bwrap, ["--unshare-user", "--unshare-net", "--die-with-parent", "--ro-bind", "/", "/", "--info-fd", "3", "--", "/bin/sh", "-c", "read -r _"], {
    stdio: ["pipe", "ignore", "ignore", "pipe"],
  });
  child.on("error", () => undefined);
  child.once("exit", () => {
    // A holder ended from outside: the next job makes another.
    holder = null;
    made = null;
  });
  const info = await new Promise<string>((resolve) => {
    let text = "";
    const pipe = child.stdio[3] as Readable;
    pipe.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    pipe.on("close", () => resolve(text));
    pipe.on("error", () => resolve(""));
  });
  const pid = /"child-pid":\s*(\d+)/.exec(info)?.[1];
  if (pid === undefined) {
    child.kill("SIGKILL");
    return null;
  }
  // The pipe is held open for as long as hel lives; neither it nor the holder keeps hel from exiting.
  (child.stdin as unknown as { unref(): void }).unref();
  child.unref();
  return [nsenter, "--preserve-credentials", `--user=/proc/${pid}/ns/user`, `--net=/proc/${pid}/ns/net`, "--"];
}
