// The model's Markdown as HTML that does nothing but show it: a model, or a file it read, can write
// anything, so raw HTML in the text is shown as text, links go only to http(s) and mailto addresses
// (never javascript:), and images are shown as their text (the page loads nothing). marked parses.
import { Marked, type Tokens } from "marked";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const SAFE_HREF = /^(?:https?:|mailto:)/i;

const marked = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      return SAFE_HREF.test(token.href.trim()) ? `<a href="${escapeHtml(token.href.trim())}" rel="noreferrer noopener">${text}</a>` : text;
    },
    image: (token: Tokens.Image) => escapeHtml(`[image: ${token.text || token.href}]`),
  },
});

export function markdownHtml(text: string): string {
  return marked.parse(text) as string;
}
