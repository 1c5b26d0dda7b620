// The sandbox as arguments, whatever the platform: which paths a policy protects, the bubblewrap command
// line and the Seatbelt profile made from it, and which sandbox program is trusted.
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
    expect(sandboxPolicy(dir, "edit", false)).toEqual({
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
    expect(sandboxPolicy(dir, "edit", true).protected).toEqual([
      { path: path.join(dir, ".hel"), kind: "missing" },
      { path: path.join(dir, ".git"), kind: "anchor" },
      { path: path.join(dir, ".git", "hooks"), kind: "missing" },
    ]);
  });

  it("gives read-only access nothing writable and no network, --network or not", async () => {
    const { dir } = await toolProject();
    expect(sandboxPolicy(dir, "read-only", true)).toEqual({ projectDir: dir, writable: false, network: false, protected: [] });
  });
});

const POLICY = {
  projectDir: "/p",
  writable: true,
  network: false,
  protected: [
    { path: "/p/.hel", kind: "missing" as const },
    { path: "/p/.git", kind: "anchor" as const },
    { path: "/p/.git/hooks", kind: "dir" as const },
    { path: "/p/.git/config", kind: "file" as const },
  ],
};

describe("bwrapArgs", () => {
  it("mounts everything read-only, then the writable project, then the protected paths over it", () => {
    expect(bwrapArgs(POLICY, "/p/sub", ["/bin/bash", "-c", "make"])).toEqual([
      ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"],
      ...["--bind", "/p", "/p"],
      ...["--tmpfs", "/p/.hel", "--remount-ro", "/p/.hel"],
      ...["--bind", "/p/.git", "/p/.git"],
      ...["--ro-bind", "/p/.git/hooks", "/p/.git/hooks"],
      ...["--ro-bind", "/p/.git/config", "/p/.git/config"],
      "--unshare-net",
      ...["--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--chdir", "/p/sub", "--", "/bin/bash", "-c", "make"],
    ]);
  });

  it("binds a read-only project read-only and keeps the network only when allowed", () => {
    expect(bwrapArgs({ ...POLICY, writable: false }, "/p", ["sh"])).toEqual(
      ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", "/p", "/p", "--unshare-net", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--chdir", "/p", "--", "sh"],
    );
    expect(bwrapArgs({ ...POLICY, network: true }, "/p", ["sh"])).not.toContain("--unshare-net");
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
        '(deny file-write* (literal "/Users/a \\"b\\"") (subpath "/p/.hel") (literal "/p/.git") (subpath "/p/.git/hooks") (literal "/p/.git/config"))',
        "(deny network*)",
        "",
      ].join("\n"),
    );
  });
});

describe("findSandboxProgram", () => {
  it("never trusts a bwrap inside the project, which the project could have planted", async () => {
    const { dir, outside } = await toolProject();
    for (const d of [path.join(dir, "bin"), outside]) {
      await mkdir(d, { recursive: true });
      await writeFile(path.join(d, "bwrap"), "#!/bin/sh\nexec \"$@\"\n");
      await chmod(path.join(d, "bwrap"), 0o755);
    }
    const env = { PATH: [path.join(dir, "bin"), "relative/bin", outside].join(path.delimiter) };
    expect(findSandboxProgram(dir, env, "linux")).toEqual({ kind: "bwrap", path: path.join(outside, "bwrap") });
    expect(findSandboxProgram(dir, { PATH: path.join(dir, "bin") }, "linux")).toBeNull();
    expect(findSandboxProgram(dir, env, "win32")).toBeNull();
  });
});
