// The session page's script and styles (page.ts), as the build wrote them into dist/bundle/
// (view-page.js, view-page.css; rolldown.config.mjs): beside the bundle's own chunks, or, for the
// compiled modules and the TypeScript sources tests load, in the checkout's dist/bundle/.
import { readFile } from "node:fs/promises";
import { HelError } from "../errors.js";
import type { PageAssets } from "./page.js";

function assetUrl(name: string): URL {
  const here = import.meta.url;
  if (here.endsWith(".cjs")) return new URL(`./${name}`, here);
  return new URL(here.replace(/\/(?:out\/)?src\/view\/[^/]+$/, `/dist/bundle/${name}`));
}

export async function readPageAssets(): Promise<PageAssets> {
  try {
    const [script, style] = await Promise.all([readFile(assetUrl("view-page.js"), "utf8"), readFile(assetUrl("view-page.css"), "utf8")]);
    return { script, style };
  } catch (error) {
    throw new HelError(`the session page's script is missing (${(error as Error).message}) — rebuild hel with \`npm run build\``, 1);
  }
}
