// The exported page in a real browser (headless Chromium, helpers/browser.ts), opened from its file:
// it logs no error, asks for nothing beyond its own file, runs nothing the model wrote, and shows the
// chart (drawn), the child nested under the call that started it, and the edit's diff. A screenshot
// is kept in test-artifacts/ (not committed; docs/session-page.png is one, for the README).
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSimulator } from "../../sim/index.js";
import { runHelInProcess } from "../helpers/conversation.js";
import { openInChromium, type OpenedPage } from "../helpers/browser.js";
import { exportScript, makeExportedSession } from "../helpers/exported-session.js";
import { KEY } from "../helpers/sim.js";
import { ROOT } from "../helpers/hel.js";

const ARTIFACTS = join(ROOT, "test-artifacts");
let opened: OpenedPage;
let file: string;

beforeAll(async () => {
  const sim = await startSimulator({ script: exportScript() });
  const made = await makeExportedSession(sim);
  await sim.close();
  file = join(made.dir, "session.html");
  const run = await runHelInProcess({ args: ["-C", made.dir, "sessions", "export", made.id, "-o", file], env: { DEEPSEEK_API_KEY: KEY } });
  expect(run.code, run.stderr).toBe(0);
  opened = await openInChromium(pathToFileURL(file).href);
}, 120_000);

afterAll(async () => {
  await opened?.close();
});

it("loads with no console error and no request beyond its own file, and runs nothing the model wrote", async () => {
  const { page, problems, requests } = opened;
  expect(problems).toEqual([]);
  expect(requests).toEqual([pathToFileURL(file).href]);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.locator("a[href]").evaluateAll((links) => links.map((a) => (a as unknown as { protocol: string }).protocol).filter((p) => p !== "https:" && p !== "file:"))).toEqual([]);
  // The model's raw HTML is on the page as text.
  expect(await page.locator("main").textContent()).toContain("<script>window.__pwned = 1</script>");
});

/** How many pixels of a canvas are not transparent: something was drawn. */
const painted = (canvas: ReturnType<OpenedPage["page"]["locator"]>) =>
  canvas.evaluate((element) => {
    // The tests compile without the DOM's types: the canvas as much of it as is used here.
    const c = element as unknown as { width: number; height: number; getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    const pixels = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) n++;
    return n;
  });

it("draws the chart of every request (cached and uncached prompt tokens, output tokens) and the one of dollars per agent", async () => {
  const { page } = opened;
  const chart = page.locator("#request-chart");
  expect(await chart.locator("canvas").count()).toBe(1);
  expect(await chart.locator(".u-legend .u-label").allTextContents()).toEqual(["request", "prompt, cached", "prompt, uncached", "output"]);
  expect(await painted(chart.locator("canvas"))).toBeGreaterThan(1000);
  const agents = page.locator("#agent-chart");
  expect(await agents.locator(".u-legend .u-label").allTextContents()).toEqual(["agent", "dollars"]);
  expect(await painted(agents.locator("canvas"))).toBeGreaterThan(1000);
  expect(await page.locator("table.spend tbody th").allInnerTexts()).toEqual(["parent", "#1 task-only"]);
});

it("nests the child's transcript under the call that started it, and shows the edit's diff", async () => {
  const { page } = opened;
  const child = page.locator("#child-1");
  expect(await child.evaluate((el) => el.closest(".call")?.querySelector(".tool")?.textContent)).toBe("delegate_task");
  expect(await child.locator(".call .tool").allInnerTexts()).toEqual(["read_file"]);
  expect(await child.locator(".answer").last().textContent()).toContain("notes.md asks to ship it on Friday.");
  const diff = page.locator(".call .diff");
  expect(await diff.locator("pre .del").allInnerTexts()).toEqual(["-hello there"]);
  expect(await diff.locator("pre .add").allInnerTexts()).toEqual(["+hello world"]);
  expect(await page.locator("#archive .fold .fold-note").textContent()).toContain("a.txt says hello there");
  expect(await page.locator("#turns li").count()).toBe(1);

  await mkdir(ARTIFACTS, { recursive: true });
  const shot = join(ARTIFACTS, "session-page.png");
  await rm(shot, { force: true });
  await page.screenshot({ path: shot, fullPage: true });
});
