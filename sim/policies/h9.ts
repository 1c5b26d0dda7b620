// h9: memory. "Remember this identifier: <ID>. Reply with OK." → OK; "What identifier did I ask you to
// remember?" → the identifier if it is anywhere earlier in the conversation, else "I don't know".
import type { Policy } from "../types.js";
import { lastUserIndex, lastUserText } from "./conversation.js";

const REMEMBER = /Remember this identifier:\s*(\S+?)\.?(?=\s|$)/i;
const ID_TOKEN = /\bID-[A-Za-z0-9][A-Za-z0-9-]*\b/;

export const h9: Policy = (req) => {
  const instruction = lastUserText(req);
  if (REMEMBER.test(instruction)) return { content: "OK" };
  if (/what identifier did i ask you to remember/i.test(instruction)) {
    // The most recent mention wins, so a later "remember" replaces an earlier one.
    const earlier = req.messages.slice(0, lastUserIndex(req.messages)).reverse();
    for (const m of earlier) {
      const text = m.content ?? "";
      const id = REMEMBER.exec(text)?.[1] ?? ID_TOKEN.exec(text)?.[0];
      if (id) return { content: id };
    }
    return { content: "I don't know" };
  }
  return { content: "OK" };
};
