// `hel web` in a real browser: the built hel serves a session made on the simulator (a fold, an edit,
// a subagent) and headless Chromium (helpers/browser.ts) opens the list and the
// session: no console error, no request beyond the loopback server, the nested child, the chart and
// the diff in the page; a turn added while the page is open appears in it (server-sent events); a
// screenshot is kept in test-artifacts/. Ctrl-C stops the server with status 0.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import { HEL_BIN, PROJECT_ROOT } from "../../scripts/hel-bin.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { CHILD_TASK, exportScript, makeExportedSession } from "../helpers/exported-session.js";
import { KEY } from "../helpers/sim.js";
import { openInChromium, type OpenedPage } from "../helpers/browser.js";

const ARTIFACTS = join(PROJECT_ROOT, "test-artifacts");
const SECOND_ANSWER = "The second turn is *here*.";

let sim: Simulator | undefined;
let server: ChildProcess | undefined;
let opened: OpenedPage | undefined;

afterAll(async () => {
  await opened?.close();
  if (server && server.exitCode === null) server.kill("SIGKILL");
  await sim?.close();
});

/** `hel web` as a process of its own, and the URL it printed. */
async function startHelWeb(dir: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [HEL_BIN, "-C", dir, "web"], { env: { ...process.env, DEEPSEEK_API_KEY: KEY, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`hel web exited (${code}) before printing its URL: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(line);
      if (found) resolve(found[1]!);
    });
  });
  return { child, url, stderr: () => stderr };
}

describe("hel web in headless Chromium", () => {
  it("shows the list and a session, with the nested child, the chart and the diff, updated as the session grows", async () => {
    sim = await startSimulator({ script: [...exportScript(), { content: SECOND_ANSWER }] });
    const made = await makeExportedSession(sim);
    const started = await startHelWeb(made.dir);
    server = started.child;
    const origin = new URL(started.url).origin;

    opened = await openInChromium(started.url, { width: 1280, height: 1000 });
    const { page, problems, requests } = opened;
    const row = page.locator(`#sessions tr[data-session="${made.id}"]`);
    await expect(row.textContent()).resolves.toContain("change a.txt to say hello world");
    await row.locator("a").click();
    await page.waitForURL(`${origin}/s/${made.id}?token=*`);
    await page.locator("#live.on").waitFor();

    const frame = page.frameLocator("#session");
    // The subagent's transcript inside the delegate_task call that started it.
    const child = frame.locator(".call details.child#child-1");
    await expect(child.textContent()).resolves.toContain(CHILD_TASK);
    await expect(child.locator(".call code.tool").first().textContent()).resolves.toBe("read_file");
    // uPlot draws the chart of every request into a canvas.
    await frame.locator("#request-chart canvas").first().waitFor();
    await expect(frame.locator(".diff .diff-head").first().textContent()).resolves.toContain("a.txt");
    await expect(frame.locator(".diff .del").filter({ hasText: "-hello there" }).count()).resolves.toBe(1);
    await expect(frame.locator(".diff .add").filter({ hasText: "+hello world" }).count()).resolves.toBe(1);
    await expect(frame.locator("body").textContent()).resolves.not.toContain(KEY);

    // A turn saved while the page is open: the server says so and the frame reloads with it.
    const again = await runHelInProcess({ args: ["-C", made.dir, "--resume", made.id, "one more turn"], baseUrl: sim.url, env: { DEEPSEEK_API_KEY: KEY } });
    expect(again.code).toBe(0);
    await frame.locator(".answer em", { hasText: "here" }).waitFor();
    await expect(page.locator("#live").textContent()).resolves.toMatch(/^updated /);
    await frame.locator("#request-chart canvas").first().waitFor();

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "hel-web-session.png") });

    expect(problems).toEqual([]);
    // The list, the frame, the page in it (twice: before and after the new turn), the event stream.
    expect(requests.filter((u) => u.includes(`/s/${made.id}/page?`)).length).toBeGreaterThanOrEqual(2);
    expect(requests.filter((u) => u.includes(`/s/${made.id}/events?`)).length).toBeGreaterThan(0);
    expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);

    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) => server!.once("exit", (code, signal) => resolve({ code, signal })));
    server.kill("SIGINT");
    expect({ ...(await ended), stderr: started.stderr() }).toEqual({ code: 0, signal: null, stderr: "" });
  });
});
