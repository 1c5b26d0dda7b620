// A failed sandboxed command whose output says the sandbox stopped it (no network, a write outside the
// project) tells the model it may ask to escalate, under --approval on-request only. Real commands in
// the real sandbox: curl, git, node and python as they fail without a network, and writes outside.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createApprovals } from "../../../src/tools/command/approvals.js";
import { escalatingRunCommandTool, runCommandTool } from "../../../src/tools/command/run-command.js";
import { sandboxDenial } from "../../../src/tools/command/sandbox-denial.js";
import type { ApprovalMode } from "../../../src/tools/types.js";
import { toolProject, withPolicy } from "../../helpers/tools.js";

const NETWORK_HINT =
  "The sandbox has no network, which is likely why it failed. If the task needs it, call run_command again with the same command, escalate: true and a justification: the user is asked whether to give it the network (in the sandbox still).";
const writeHint = (place: string) =>
  `The sandbox lets a command write only in the project and /tmp, which is likely why it failed. If the task needs it, call run_command again with the same command, escalate: true and a justification: the user is asked whether to give it writes to ${place} (in the sandbox still).`;

async function runIn(mode: ApprovalMode, command: string) {
  const { ctx } = await toolProject("edit");
  ctx.policy.approvals = createApprovals({ mode, allow: [], ask: null });
  const tool = mode === "on-request" ? escalatingRunCommandTool : runCommandTool;
  return tool.run({ command }, ctx);
}

describe("a command the sandbox stopped", () => {
  it.each([
    ["curl", "curl -sS https://example.com"],
    ["git", "git ls-remote https://github.com/octocat/Hello-World"],
    ["node's lookup", `node -e "require('https').get('https://registry.npmjs.org', () => {}).on('error', (e) => { console.error(e.message); process.exit(1); })"`],
    ["node's connect", `node -e "require('net').connect(443, '1.1.1.1').on('error', (e) => { console.error(e.message); process.exit(1); })"`],
    ["python", `python3 -c "import urllib.request; urllib.request.urlopen('https://example.com')"`],
  ])("for want of network (%s) may be escalated", async (_, command) => {
    const out = await runIn("on-request", command);
    expect(out.split("\n")[0]).toMatch(/^exit code [1-9]\d* · .*; sandbox: only the project and a private \/tmp are writable .*; no network$/);
    expect(out.split("\n")[1]).toBe(NETWORK_HINT);
  });

  it.each([
    ["bash", "echo x > /etc/hel-denial", "/etc"],
    ["mkdir", "mkdir -p /usr/hel-denial/x", "/usr"],
    ["node", `node -e "require('fs').writeFileSync('/etc/hostname', '')"`, "/etc/hostname"],
  ])("for want of a write outside the project (%s) may be escalated, for the place named or its nearest folder", async (_, command, place) => {
    const out = await runIn("on-request", command);
    expect(out.split("\n")[1]).toBe(writeHint(place));
  });

  it("offers no write to the home folder, a folder holding it or the project, / or the kernel's files", async () => {
    for (const target of [`${process.env.HOME}/hel-denial`, "/hel-denial", "/proc/hel-denial"]) {
      expect(await runIn("on-request", `touch ${target}`)).not.toContain("escalate");
    }
  });

  it("says nothing of escalation under --approval never, nor for what stays read-only in the project, nor for other failures", async () => {
    expect(await runIn("never", "curl -sS https://example.com")).not.toContain("escalate");
    expect(await runIn("on-request", "mkdir -p .hel && touch .hel/x")).not.toContain("escalate");
    expect(await runIn("on-request", "ls /nonexistent-dir")).not.toContain("escalate");
  });

  it("offers no write inside a place kept read-only: the user's config folder outside the project", async () => {
    const { ctx } = await toolProject("edit");
    const config = await mkdtemp("/var/tmp/hel-config-");
    onTestFinished(() => rm(config, { recursive: true, force: true }));
    await writeFile(path.join(config, "config.json"), "{}");
    ctx.policy.approvals = createApprovals({ mode: "on-request", allow: [], ask: null });
    const write = `echo x > ${path.join(config, "config.json")}`;
    expect(await escalatingRunCommandTool.run({ command: write }, ctx)).toContain("escalate: true");
    ctx.policy.readOnlyPaths = [config];
    expect(await escalatingRunCommandTool.run({ command: write }, withPolicy(ctx, { approvals: createApprovals({ mode: "on-request", allow: [], ask: null }) }))).not.toContain("escalate");
  });
});

describe("sandboxDenial", () => {
  it("reads the network only when the sandbox has none, and a permission error only outside the project", () => {
    expect(sandboxDenial("curl: (6) Could not resolve host: x", "/p", "/p", true)).toBeNull();
    expect(sandboxDenial("getaddrinfo EAI_AGAIN registry.npmjs.org", "/p", "/p", false)).toEqual({ network: true, writes: [] });
    expect(sandboxDenial("cp: cannot create regular file '/opt/x': Permission denied", "/p", "/p", false)).toEqual({ network: false, writes: ["/opt/x"] });
    expect(sandboxDenial("/bin/bash: line 1: /opt/y: Read-only file system\nsh: 1: cannot create /opt/z: Read-only file system", "/p", "/p", false)).toEqual({ network: false, writes: ["/opt/y", "/opt/z"] });
    expect(sandboxDenial("cp: cannot create regular file \u2018../x\u2019: Read-only file system", "/p", "/p/sub", false)).toBeNull();
    expect(sandboxDenial("cp: cannot create regular file \u2018../../x\u2019: Read-only file system", "/p", "/p/sub", false)).toEqual({ network: false, writes: ["/x"] });
    expect(sandboxDenial("bash: ./run.sh: Permission denied", "/p", "/p", false)).toBeNull();
    expect(sandboxDenial(`touch: cannot touch '${path.join("/p", ".git", "hooks", "x")}': Read-only file system`, "/p", "/p", false)).toBeNull();
  });
});
