// The viewer's own two pages, around the session page the shared renderer makes (view/page.ts): the
// list of the project's sessions, and a session's frame, which shows the rendered page in an iframe
// and reloads it when the server says the session was saved again (server-sent events). Pure: data
// in, HTML and the Content-Security-Policy that goes with it out. Each page's one style and one
// script are allowed by their hashes, the script may connect only to this server, and the iframe,
// sandboxed, may only run the rendered page's own script. Every text is escaped.
import { createHash } from "node:crypto";
import type { SessionSummary } from "../../session/catalog.js";
import { escapeHtml as h } from "../../view/markdown-html.js";

export interface Page {
  html: string;
  csp: string;
}

const hash = (text: string): string => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1f23; background: #fafafa; }
main { padding: 1.2rem 1.6rem; }
h1 { font-size: 1.25rem; margin: 0 0 .8rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #e4e4e7; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, monospace; }
.tag { font-size: 11px; padding: 0 .35rem; border-radius: 3px; background: #eef; margin-right: .3rem; }
.tag.warn { background: #fde8c8; }
.quiet { color: #666; }
body.frame { display: flex; flex-direction: column; height: 100vh; }
body.frame > header { display: flex; gap: 1rem; align-items: baseline; padding: .5rem 1rem; border-bottom: 1px solid #ddd; background: #fff; }
#live::before { content: "●"; margin-right: .3rem; color: #999; }
#live.on::before { color: #2a9d4b; }
iframe { flex: 1; border: 0; width: 100%; background: #fff; }
`;

function policy(script: string | null): string {
  const scripts = script === null ? "'none'" : hash(script);
  return `default-src 'none'; script-src ${scripts}; style-src ${hash(STYLE)}; connect-src 'self'; frame-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

function document(title: string, body: string, bodyAttributes: string, script: string | null): Page {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body${bodyAttributes}>
${body}
${script === null ? "" : `<script>${script}</script>`}
</body>
</html>
`;
  return { html, csp: policy(script) };
}

/** A path of this server, with the token every request must carry. */
const withToken = (path: string, token: string): string => `${path}?token=${encodeURIComponent(token)}`;

const digits = (n: number): string => n.toLocaleString("en-US");

function sessionRow(s: SessionSummary, token: string): string {
  const tags = [s.in_use ? `<span class="tag">running</span>` : "", s.written_by_hel ? "" : `<span class="tag warn">not written by hel here</span>`, s.error ? `<span class="tag warn">${h(s.error)}</span>` : ""].join("");
  const first = s.first_instruction ?? "";
  const shown = first.length > 200 ? `${first.slice(0, 200)}…` : first;
  return `<tr data-session="${h(s.id)}"><td><a href="${h(withToken(`/s/${encodeURIComponent(s.id)}`, token))}"><code>${h(s.id.slice(0, 8))}</code></a></td><td>${h(s.updated_at ?? "")}</td><td class="n">${s.turns ?? ""}</td><td class="n">${s.tokens === null ? "" : digits(s.tokens)}</td><td>${h(s.model ?? "")}</td><td>${tags}${h(shown)}</td></tr>`;
}

export function listPage(projectDir: string, sessions: readonly SessionSummary[], token: string): Page {
  const rows = sessions.map((s) => sessionRow(s, token)).join("\n");
  const body = `<main>
<h1>hel sessions of <code>${h(projectDir)}</code></h1>
${
  sessions.length === 0
    ? `<p class="quiet">No sessions in this project yet: run hel with an instruction to start one.</p>`
    : `<table id="sessions"><thead><tr><th>session</th><th>saved</th><th>turns</th><th>tokens</th><th>model</th><th>first instruction</th></tr></thead><tbody>
${rows}
</tbody></table>`
}
</main>`;
  return document(`hel sessions — ${projectDir}`, body, "", null);
}

// Reloads the frame when the server says the snapshot changed; `since` is the version this page was
// made from, so a save between this page and the event stream is not missed.
const FRAME_SCRIPT = `(() => {
  const frame = document.getElementById("session");
  const live = document.getElementById("live");
  const since = document.body.dataset.version;
  const events = new EventSource(location.pathname + "/events" + location.search + "&since=" + encodeURIComponent(since));
  events.addEventListener("open", () => { live.className = "on"; live.textContent = "live"; });
  events.addEventListener("changed", (event) => {
    const url = new URL(frame.src);
    url.searchParams.set("v", event.data);
    frame.src = url.toString();
    live.textContent = "updated " + new Date().toLocaleTimeString();
  });
  events.addEventListener("error", () => { live.className = ""; live.textContent = "not connected: is hel web still running?"; });
})();`;

export function framePage(id: string, version: string, token: string): Page {
  const page = withToken(`/s/${encodeURIComponent(id)}/page`, token);
  const body = `<header><a href="${h(withToken("/", token))}">← sessions</a><strong>session <code>${h(id)}</code></strong><span id="live">connecting</span></header>
<iframe id="session" title="session ${h(id)}" sandbox="allow-scripts" src="${h(page)}"></iframe>`;
  return document(`hel session ${id}`, body, ` class="frame" data-version="${h(version)}"`, FRAME_SCRIPT);
}

export function messagePage(title: string, message: string, token: string | null): Page {
  const back = token === null ? "" : `<p><a href="${h(withToken("/", token))}">← sessions</a></p>`;
  return document(title, `<main><h1>${h(title)}</h1><p>${h(message)}</p>${back}</main>`, "", null);
}
