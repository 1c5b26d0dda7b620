// The sandbox each access level promises, proved with real commands in bubblewrap (Linux; CI installs
// it): what a command may write, what stays protected, whether it reaches a server on 127.0.0.1, and
// that each of those succeeds once the user chose --access full.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { findSandboxProgram } from "../../../src/tools/command/sandbox.js";
import { runCommandTool } from "../../../src/tools/command/run-command.js";
import type { ToolContext } from "../../../src/tools/types.js";
import { running } from "../../helpers/processes.js";
import { toolProject } from "../../helpers/tools.js";

const run = (ctx: ToolContext, command: string) => runCommandTool.run({ command }, ctx);
const lines = (out: string) => out.split("\n").slice(1);

describe.runIf(process.platform === "linux")("run_command in the sandbox", () => {
  it("finds bubblewrap on this machine", () => {
    expect(findSandboxProgram("/nonexistent")).toMatchObject({ kind: "bwrap" });
  });

  describe("edit", () => {
    it("writes in the project and a private /tmp only; outside the project the same write works under full", async () => {
      const { ctx, dir } = await toolProject("edit");
      // Not under /tmp, which the sandbox replaces with its own.
      const outside = await mkdtemp("/var/tmp/hel-outside-");
      onTestFinished(() => rm(outside, { recursive: true, force: true }));
      const marker = `hel-sandbox-${path.basename(path.dirname(dir))}`;
      const command = `echo in > inside.txt && echo project ok; echo out > ${outside}/x.txt || echo outside refused; echo tmp > /tmp/${marker} && cat /tmp/${marker}`;
      const out = await run(ctx, command);
      expect(lines(out)).toEqual(["project ok", `/bin/bash: line 1: ${outside}/x.txt: Read-only file system`, "outside refused", "tmp"]);
      expect(await readFile(path.join(dir, "inside.txt"), "utf8")).toBe("in\n");
      expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
      // The sandbox's /tmp is its own: nothing written there reaches the machine's.
      expect(existsSync(`/tmp/${marker}`)).toBe(false);

      ctx.policy.access = "full";
      expect(lines(await run(ctx, `echo out > ${outside}/x.txt && echo outside ok`))).toEqual(["outside ok"]);
      expect(await readFile(path.join(outside, "x.txt"), "utf8")).toBe("out\n");
    });

    it("keeps .hel/ read-only and in place; under full the same write works", async () => {
      const { ctx, dir } = await toolProject("edit");
      await mkdir(path.join(dir, ".hel", "sessions"), { recursive: true });
      const out = await run(ctx, "echo x > .hel/sessions/planted || echo write refused; mv .hel moved || echo move refused; rm -rf .hel 2>/dev/null || echo remove refused; ls -a .hel");
      expect(lines(out)).toEqual([
        "/bin/bash: line 1: .hel/sessions/planted: Read-only file system",
        "write refused",
        "mv: cannot move '.hel' to 'moved': Device or resource busy",
        "move refused",
        "remove refused",
        ".",
        "..",
        "sessions",
      ]);
      expect(out.split("\n")[0]).toMatch(/^exit code 0 /);
      ctx.policy.access = "full";
      expect(lines(await run(ctx, "echo x > .hel/sessions/planted && echo written"))).toEqual(["written"]);
    });

    it("keeps a .hel/ that does not exist yet from being created", async () => {
      const { ctx } = await toolProject("edit");
      const out = await run(ctx, "mkdir -p .hel/sessions/x && echo created || echo refused");
      expect(lines(out).at(-1)).toBe("refused");
    });

    it("keeps git's hooks and config read-only and .git in place, while git itself still commits", async () => {
      const { ctx, dir } = await toolProject("edit");
      execFileSync("git", ["init", "-q", dir]);
      await writeFile(path.join(dir, "a.txt"), "a\n");
      const out = await run(
        ctx,
        [
          "echo 'echo pwned' > .git/hooks/pre-commit || echo hook refused",
          "git config core.hooksPath evil 2>/dev/null || echo config refused",
          "mv .git .git-old 2>/dev/null || echo move refused",
          "mv .git/hooks .git/h 2>/dev/null || echo hooks move refused",
          "git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one && echo committed",
        ].join("; "),
      );
      expect(lines(out)).toEqual(["/bin/bash: line 1: .git/hooks/pre-commit: Read-only file system", "hook refused", "config refused", "move refused", "hooks move refused", "committed"]);
      expect(existsSync(path.join(dir, ".git", "hooks", "pre-commit"))).toBe(false);
      ctx.policy.access = "full";
      expect(lines(await run(ctx, "echo 'exit 0' > .git/hooks/pre-commit && echo hook written"))).toEqual(["hook written"]);
    });

    it("ends the sandboxed group on timeout", async () => {
      const { ctx } = await toolProject("edit");
      const out = await runCommandTool.run({ command: "sleep 3010 & sleep 3011", timeout_s: 0.5 }, ctx);
      expect(out.split("\n")[0]).toBe("timed out after 0.5 s: the command and every process it started were ended");
      expect(running("sleep 301")).toEqual([]);
    });

    it.runIf(process.getuid?.() === 0)("gives a command no capabilities even when hel runs as root", async () => {
      const { ctx } = await toolProject("edit");
      const out = await run(ctx, "mount -o remount,rw / 2>/dev/null && echo remounted || echo refused; echo x > /etc/hel-sandbox-test || echo etc refused");
      expect(lines(out)).toEqual(["refused", "/bin/bash: line 1: /etc/hel-sandbox-test: Read-only file system", "etc refused"]);
    });
  });

  describe("network", () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo no connection`;

    it("reaches no server on 127.0.0.1 without --network, and says so in a failed command's result", async () => {
      const { ctx } = await toolProject("edit");
      const before = connections;
      const out = await run(ctx, `${connect()}; exit 1`);
      expect(lines(out).at(-1)).toBe("no connection");
      expect(out.split("\n")[0]).toMatch(/^exit code 1 · \d+\.\d\d s; sandbox: only the project and a private \/tmp are writable \(not \.hel\/, nor \.git hooks and config\); no network$/);
      expect(connections).toBe(before);
    });

    it("reaches it with --network, and under full", async () => {
      const { ctx } = await toolProject("edit");
      ctx.policy.network = true;
      expect(lines(await run(ctx, connect()))).toEqual(["hello from the host"]);
      const full = await toolProject("full");
      expect(lines(await run(full.ctx, connect()))).toEqual(["hello from the host"]);
    });

    it("reaches nothing under read-only, even with --network", async () => {
      const { ctx } = await toolProject("read-only");
      ctx.policy.network = true;
      expect(lines(await run(ctx, connect())).at(-1)).toBe("no connection");
    });
  });

  describe("read-only", () => {
    it("writes nothing but a private /tmp", async () => {
      const { ctx, dir } = await toolProject("read-only");
      await writeFile(path.join(dir, "a.txt"), "a\n");
      const out = await run(ctx, "cat a.txt; echo b >> a.txt || echo project refused; echo t > /tmp/t && cat /tmp/t");
      expect(lines(out)).toEqual(["a", "/bin/bash: line 1: a.txt: Read-only file system", "project refused", "t"]);
      expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a\n");
    });
  });
});
