// The instruction an editor's prompt gives: its text, with each file it links named by its path.
// Only text and links are taken (the capabilities hel announces say so): an embedded resource or an
// image would put into the request what hel did not read from the project itself.
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";

export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "resource_link") return block.uri.startsWith("file://") ? fileURLToPath(block.uri) : block.uri;
      return "";
    })
    .join("")
    .trim();
}
