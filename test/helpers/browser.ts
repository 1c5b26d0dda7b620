// A page opened in headless Chromium (Debian's package, /usr/bin/chromium; .ci/run installs it), driven
// by playwright-core, with what the page said on its console and every request it made, for the
// tests of the pages hel writes and serves. CHROMIUM overrides the browser's path.
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export interface OpenedPage {
  page: Page;
  /** Console errors and warnings (a refused request, a policy violation) and uncaught exceptions. */
  problems: string[];
  /** The URL of every request the page made, the page's own included. */
  requests: string[];
  close(): Promise<void>;
}

export async function openInChromium(url: string, viewport = { width: 1200, height: 900 }): Promise<OpenedPage> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-first-run", "--disable-background-networking"] });
  try {
    const page = await browser.newPage({ viewport });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(url, { waitUntil: "load" });
    return { page, problems, requests, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
