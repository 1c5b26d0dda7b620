// The sandbox as arguments, whatever the platform: which paths a policy protects, the bubblewrap command
// line and the Seatbelt profile made from it, and which sandbox program is trusted.
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { bwrapArgs } from "../../../src/tools/command/bwrap.js";
import { findSandboxProgram } from "../../../src/tools/command/sandbox.js";
import { sandboxPolicy } from "../../../src/tools/command/sandbox-policy.js";
import { seatbeltProfile } from "../../../src/tools/command/seatbelt.js";
import { toolProject } from "../../helpers/tools.js";

describe("sandboxPolicy", () => {
  it("protects .hel/, pins .git in place, and keeps its hooks and config read-only", async () => {
    const { dir } = await toolProject();
    await mkdir(path.join(dir, ".hel"));
    await mkdir(path.join(dir, ".git", "hooks"), { recursive: true });
    await writeFile(path.join(dir, ".git", "config"), "[core]\n");
    expect(sandboxPolicy(dir, "edit", { env: {} })).toMatchObject({
      projectDir: dir,
      writable: true,
      network: false,
      protected: [
        { path: path.join(dir, ".hel"), kind: "dir" },
        { path: path.join(dir, ".git"), kind: "anchor" },
        { path: path.join(dir, ".git", "hooks"), kind: "dir" },
        { path: path.join(dir, ".git", "config"), kind: "file" },
      ],
    });
  });

  it("keeps .hel/ and .git/hooks from being created where they do not exist yet", async () => {
    const { dir } = await toolProject();
    await mkdir(path.join(dir, ".git"));
    expect(sandboxPolicy(dir, "edit", { network: true, env: {} }).protected).toEqual([
      { path: path.join(dir, ".hel"), kind: "missing" },
      { path: path.join(dir, ".git"), kind: "anchor" },
      { path: path.join(dir, ".git", "hooks"), kind: "missing" },
    ]);
  });

  it("keeps every nested .hel read-only, and the read-only paths it is given over the anchors; what may not be made is kept to be checked after", async () => {
    const { dir, outside } = await toolProject();
    await mkdir(path.join(dir, ".git"));
    await mkdir(path.join(dir, "sub", ".hel"), { recursive: true });
    await mkdir(path.join(dir, "node_modules", "a", "b", ".hel"), { recursive: true });
    await writeFile(path.join(dir, "hook.sh"), "");
    const policy = sandboxPolicy(dir, "edit", { readOnly: [path.join(dir, "hook.sh"), path.join(dir, "gone.sh"), path.join(outside, "elsewhere.sh")], granted: [outside], env: {} });
    expect(policy.protected).toEqual([
      { path: path.join(dir, ".hel"), kind: "missing" },
      { path: path.join(dir, ".git"), kind: "anchor" },
      { path: path.join(dir, ".git", "hooks"), kind: "missing" },
      { path: path.join(dir, "sub", ".hel"), kind: "dir" },
      { path: path.join(dir, "node_modules", "a", "b", ".hel"), kind: "dir" },
      { path: path.join(dir, "hook.sh"), kind: "file" },
    ]);
    expect(policy.kept).toEqual([path.join(dir, "hook.sh"), path.join(dir, "gone.sh"), path.join(outside, "elsewhere.sh")]);
    expect(policy.granted).toEqual([outside]);
    // With nothing granted, what lies outside the project is read-only anyway.
    expect(sandboxPolicy(dir, "edit", { readOnly: [path.join(outside, "elsewhere.sh")], env: {} }).kept).toEqual([]);
  });

  it("gives read-only access nothing writable and no network, --network or not", async () => {
    const { dir } = await toolProject();
    expect(sandboxPolicy(dir, "read-only", { network: true })).toMatchObject({ projectDir: dir, writable: false, network: false, protected: [] });
  });

  it("keeps a .git file read-only (the project is a linked worktree or a submodule), and what a symlinked hooks or config points to", async () => {
    const { dir } = await toolProject();
    await writeFile(path.join(dir, ".git"), "gitdir: /elsewhere/.git/worktrees/p\n");
    expect(sandboxPolicy(dir, "edit", { env: {} }).protected).toEqual([
      { path: path.join(dir, ".hel"), kind: "missing" },
      { path: path.join(dir, ".git"), kind: "file" },
    ]);
    const other = await toolProject();
    await mkdir(path.join(other.dir, ".git"));
    await mkdir(path.join(other.dir, "shared-hooks"));
    await writeFile(path.join(other.dir, "shared-config"), "[core]\n");
    await symlink("../shared-hooks", path.join(other.dir, ".git", "hooks"));
    await symlink("../shared-config", path.join(other.dir, ".git", "config"));
    expect(sandboxPolicy(other.dir, "edit", { env: {} }).protected).toEqual([
      { path: path.join(other.dir, ".hel"), kind: "missing" },
      { path: path.join(other.dir, ".git"), kind: "anchor" },
      { path: path.join(other.dir, "shared-hooks"), kind: "dir" },
      { path: path.join(other.dir, "shared-config"), kind: "file" },
    ]);
  });

  it("hides the runtime directories and covers every named Unix socket outside the project, /tmp, /dev and /proc", async () => {
    const { dir } = await toolProject();
    // Not under /tmp, which the sandbox has its own of.
    const outside = await mkdtemp("/var/tmp/hel-sockets-");
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    const sockets = [path.join(outside, "agent.sock"), path.join(dir, "own.sock")];
    const servers = await Promise.all(
      sockets.map(
        (s) =>
          new Promise<Server>((resolve) => {
            const server = createServer();
            server.listen(s, () => resolve(server));
          }),
      ),
    );
    onTestFinished(async () => void (await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))));
    const runtime = path.join(outside, "runtime");
    await mkdir(runtime);
    const policy = sandboxPolicy(dir, "read-only", { env: { XDG_RUNTIME_DIR: runtime } });
    expect(policy.sockets.dirs).toContain(runtime);
    expect(policy.sockets.files).toContain(sockets[0]);
    expect(policy.sockets.files).not.toContain(sockets[1]);
    expect(policy.sockets.files.filter((f) => /^\/(tmp|dev|proc)\//.test(f))).toEqual([]);
  });
});

const POLICY = {
  projectDir: "/p",
  writable: true,
  network: false,
  granted: [] as string[],
  kept: [] as string[],
  nestedHel: [] as string[],
  sockets: { dirs: ["/run/user"], files: ["/run/docker.sock"] },
  protected: [
    { path: "/p/.hel", kind: "missing" as const },
    { path: "/p/.git", kind: "anchor" as const },
    { path: "/p/.git/hooks", kind: "dir" as const },
    { path: "/p/.git/config", kind: "file" as const },
  ],
};

const FEATURES = { disableUserns: true };
const PROC = [
  ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
  ...["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"].flatMap((p) => ["--ro-bind-try", p, p]),
  ...["--tmpfs", "/tmp"],
];
const NAMESPACES = ["--unshare-user", "--disable-userns", "--unshare-uts", "--unshare-ipc", "--unshare-pid"];

describe("bwrapArgs", () => {
  it("mounts everything read-only, the kernel's files too, hides the sockets, then the writable project, then the protected paths over it", () => {
    expect(bwrapArgs(POLICY, "/p/sub", ["/bin/bash", "-c", "make"], FEATURES)).toEqual([
      ...PROC,
      ...["--tmpfs", "/run/user", "--remount-ro", "/run/user", "--ro-bind", "/dev/null", "/run/docker.sock"],
      ...["--bind", "/p", "/p"],
      ...["--tmpfs", "/p/.hel", "--remount-ro", "/p/.hel"],
      ...["--bind", "/p/.git", "/p/.git"],
      ...["--ro-bind", "/p/.git/hooks", "/p/.git/hooks"],
      ...["--ro-bind", "/p/.git/config", "/p/.git/config"],
      "--unshare-net",
      ...NAMESPACES,
      ...["--die-with-parent", "--cap-drop", "ALL", "--chdir", "/p/sub", "--", "/bin/bash", "-c", "make"],
    ]);
  });

  it("binds what a grant adds after the project and before the protected paths", () => {
    const args = bwrapArgs({ ...POLICY, granted: ["/var/cache/x"] }, "/p", ["sh"], FEATURES);
    const at = (...what: string[]) => args.findIndex((_, i) => what.every((w, j) => args[i + j] === w));
    expect(at("--bind", "/var/cache/x", "/var/cache/x")).toBeGreaterThan(at("--bind", "/p", "/p"));
    expect(at("--bind", "/var/cache/x", "/var/cache/x")).toBeLessThan(at("--tmpfs", "/p/.hel"));
  });

  it("binds a read-only project read-only and keeps the network only when allowed", () => {
    const policy = { ...POLICY, writable: false, sockets: { dirs: [], files: [] } };
    expect(bwrapArgs(policy, "/p", ["sh"], FEATURES)).toEqual([...PROC, "--ro-bind", "/p", "/p", "--unshare-net", ...NAMESPACES, "--die-with-parent", "--cap-drop", "ALL", "--chdir", "/p", "--", "sh"]);
    expect(bwrapArgs({ ...POLICY, network: true }, "/p", ["sh"], FEATURES)).not.toContain("--unshare-net");
  });

  it("leaves --disable-userns out for a bubblewrap that does not know it", () => {
    const args = bwrapArgs(POLICY, "/p", ["sh"], { disableUserns: false });
    expect(args).not.toContain("--disable-userns");
    expect(args).toContain("--unshare-user");
  });
});

describe("seatbeltProfile", () => {
  it("denies writes but in the temporary directory and the project, then again on the protected paths", () => {
    expect(seatbeltProfile({ ...POLICY, projectDir: '/Users/a "b"' }, "/private/tmp/hel-command-1")).toBe(
      [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/") (subpath "/private/tmp/hel-command-1"))',
        '(allow file-write* (subpath "/Users/a \\"b\\""))',
        '(deny file-write* (literal "/Users/a \\"b\\"") (subpath "/p/.hel") (literal "/p/.git") (subpath "/p/.git/hooks") (literal "/p/.git/config") (regex "^/Users/a \\"b\\"/(.*/)?\\\\.hel(/|$)"))',
        "(deny network*)",
        "",
      ].join("\n"),
    );
  });
});

describe("findSandboxProgram", () => {
  it("takes bwrap from the system's directories only: never from the project, even through a symlinked PATH entry", async () => {
    const { dir, outside } = await toolProject();
    const bin = path.join(dir, "node_modules", ".bin");
    for (const d of [bin, outside]) {
      await mkdir(d, { recursive: true });
      await writeFile(path.join(d, "bwrap"), '#!/bin/sh\nexec "$@"\n');
      await chmod(path.join(d, "bwrap"), 0o755);
    }
    const link = path.join(outside, "tools");
    await symlink(bin, link);
    expect(findSandboxProgram(dir, { PATH: [link, "relative/bin", outside].join(path.delimiter) }, "linux")).toBeNull();
    expect(findSandboxProgram(dir, { PATH: [link, outside, "/usr/bin", "/bin"].join(path.delimiter) }, "linux")).toEqual({ kind: "bwrap", path: "/usr/bin/bwrap" });
    expect(findSandboxProgram(dir, { PATH: "/usr/bin" }, "win32")).toBeNull();
  });
});
