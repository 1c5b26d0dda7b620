// The formats `hel sessions export` writes, each a pure rendering of the session's document: the page,
// Markdown, the document itself (JSON), and an ATIF trajectory.
import { toAtif } from "./atif.js";
import type { SessionDocument } from "./document.js";
import { renderSessionPage, type PageAssets } from "./page.js";
import { renderSessionMarkdown } from "./session-markdown.js";

import type { ExportFormat } from "./format-names.js";

/** `assets` is needed (and read by the caller) only for html. */
export function renderExport(doc: SessionDocument, format: ExportFormat, helVersion: string, assets: PageAssets | null): string {
  switch (format) {
    case "html":
      if (!assets) throw new Error("the page's assets are needed for html");
      return renderSessionPage(doc, assets);
    case "md":
      return renderSessionMarkdown(doc);
    case "json":
      return `${JSON.stringify(doc, null, 2)}\n`;
    case "atif":
      return `${JSON.stringify(toAtif(doc, helVersion), null, 2)}\n`;
  }
}
