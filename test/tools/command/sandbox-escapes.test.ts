// The ways out of the sandbox a command tried as root (as CI and containers run) and what closes each,
// with real commands in bubblewrap under edit and read-only: the kernel's settings (/proc/sys, /sys,
// the hostname), capabilities, the host's Unix sockets, and a file descriptor hel inherited. Each
// shows the same attempt working without the sandbox, so the refusal is the sandbox's doing.
import { readlinkSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { openSync, closeSync } from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { startSimulator } from "../../../sim/index.js";
import type { ChatRequest } from "../../../src/wire/messages.js";
import { runCommandTool } from "../../../src/tools/command/run-command.js";
import type { ToolContext } from "../../../src/tools/types.js";
import { HEL, collect, helEnv } from "../../helpers/hel.js";
import { tempProject } from "../../helpers/temp-project.js";
import { toolProject } from "../../helpers/tools.js";

const run = (ctx: ToolContext, command: string) => runCommandTool.run({ command }, ctx);
const lines = (out: string) => out.split("\n").slice(1);
const LEVELS = ["edit", "read-only"] as const;

describe.runIf(process.platform === "linux")("escapes from the sandbox", () => {
  describe.runIf(process.getuid?.() === 0)("the kernel, as root", () => {
    // Each write puts back the value it read, so that even where it goes through it changes nothing.
    const writeBack = (file: string) => `v=$(cat ${file}) && printf '%s\\n' "$v" > ${file} && echo "${file} written" || echo "${file} refused"`;
    const attempts = [
      writeBack("/proc/sys/kernel/core_pattern"),
      writeBack("/proc/sys/kernel/hostname"),
      writeBack("/proc/sys/kernel/domainname"),
      writeBack("/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan"),
      'hostname "$(hostname)" 2>/dev/null && echo sethostname worked || echo sethostname refused',
      'domainname "$(domainname)" 2>/dev/null && echo setdomainname worked || echo setdomainname refused',
    ].join("; ");

    it.each(LEVELS)("changes nothing the kernel exposes under %s, and keeps no capability", async (access) => {
      const { ctx } = await toolProject(access);
      const kernelFiles = ["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sys/kernel/domainname", "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan"];
      expect(lines(await run(ctx, attempts))).toEqual([...kernelFiles.flatMap((file) => [`/bin/bash: line 1: ${file}: Read-only file system`, `${file} refused`]), "sethostname refused", "setdomainname refused"]);
      const caps = lines(await run(ctx, "grep ^Cap /proc/self/status; readlink /proc/self/ns/uts /proc/self/ns/user"));
      expect(caps.slice(0, 5)).toEqual(["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"].map((name) => `${name}:\t0000000000000000`));
      // Namespaces of its own: a hostname set inside (were it possible) would not be the machine's.
      expect(caps[5]).not.toBe(readlinkSync("/proc/self/ns/uts"));
      expect(caps[6]).not.toBe(readlinkSync("/proc/self/ns/user"));
    });

    it("cannot make a user namespace of its own to get capabilities back", async () => {
      const { ctx } = await toolProject("edit");
      const out = await run(ctx, "unshare -U -r true 2>/dev/null && echo made || echo refused; unshare -U true 2>/dev/null && echo made || echo refused");
      expect(lines(out)).toEqual(["refused", "refused"]);
    });

    it("could write them under full: the refusals are the sandbox's", async () => {
      const { ctx } = await toolProject("full");
      expect(lines(await run(ctx, writeBack("/proc/sys/kernel/hostname")))).toEqual(["/proc/sys/kernel/hostname written"]);
    });
  });

  describe("the host's Unix sockets", () => {
    // Not under /tmp, which the sandbox has its own of; and one under /run, where daemons keep theirs.
    async function listening(dir: string): Promise<{ socket: string; connections: () => number }> {
      const socket = path.join(dir, "agent.sock");
      let connections = 0;
      const server: Server = createServer((c) => {
        connections++;
        c.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
      return { socket, connections: () => connections };
    }
    const connect = (socket: string) =>
      `${process.execPath} -e 'require("net").connect(${JSON.stringify(socket)}).on("data", (d) => { process.stdout.write(String(d)); process.exit(0); }).on("error", (e) => { console.log(e.code); process.exit(0); })'`;

    it.each(LEVELS)("reaches none under %s, in a directory outside the project or under /run; under full the same connect works", async (access) => {
      const dirs = [await mkdtemp("/var/tmp/hel-socket-"), ...(process.getuid?.() === 0 ? [await mkdtemp("/run/hel-socket-")] : [])];
      for (const dir of dirs) onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const servers = await Promise.all(dirs.map(listening));
      const { ctx } = await toolProject(access);
      ctx.policy.network = true;
      for (const { socket, connections } of servers) {
        expect(lines(await run(ctx, connect(socket)))).toEqual(["ECONNREFUSED"]);
        expect(connections()).toBe(0);
      }
      const full = await toolProject("full");
      for (const { socket, connections } of servers) {
        expect(lines(await run(full.ctx, connect(socket)))).toEqual(["hello from the host"]);
        expect(connections()).toBe(1);
      }
    });

    it("still reaches a socket of its own in the project and in its /tmp", async () => {
      const { ctx } = await toolProject("edit");
      const serve = (socket: string) =>
        `${process.execPath} -e 'const s = require("net").createServer((c) => c.end("own\\n")).listen(${JSON.stringify(socket)}, () => require("net").connect(${JSON.stringify(socket)}).on("data", (d) => { process.stdout.write(String(d)); s.close(); process.exit(0); }))'`;
      expect(lines(await run(ctx, `${serve("own.sock")}; ${serve("/tmp/own.sock")}`))).toEqual(["own", "own"]);
    });
  });

  it.each(LEVELS)("passes no file descriptor hel inherited into the sandbox under %s", async (access) => {
    const outside = await mkdtemp("/var/tmp/hel-fd-");
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    const file = path.join(outside, "inherited.txt");
    await writeFile(file, "before\n");
    const command = "echo through >&200 || echo refused; echo through > /proc/self/fd/200 || echo refused; ls /proc/self/fd | sort -n | tr '\\n' ' '";
    const sim = await startSimulator({ script: [{ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command }) }] }, { content: "done" }] });
    onTestFinished(() => sim.close());
    const project = await tempProject();
    const fd = openSync(file, "a");
    // hel started as a shell would start it with `200>>file`: the descriptor open, not close-on-exec.
    const stdio: ("pipe" | "ignore" | number)[] = ["pipe", "pipe", "pipe", ...Array<"ignore">(197).fill("ignore"), fd];
    const child = spawn(process.execPath, [HEL, "-C", project, "--tools", "run_command", "--access", access, "try"], { env: helEnv(sim.url), stdio });
    closeSync(fd);
    const result = await collect(child);
    expect(result.code).toBe(0);
    const tool = (sim.requests.at(-1)!.body as ChatRequest).messages.findLast((m) => m.role === "tool")!.content as string;
    expect(tool.split("\n").slice(1)).toEqual(["/bin/bash: line 1: 200: Bad file descriptor", "refused", "/bin/bash: line 1: /proc/self/fd/200: No such file or directory", "refused", "0 1 2 3 "]);
    expect(await readFile(file, "utf8")).toBe("before\n");
  });
});
