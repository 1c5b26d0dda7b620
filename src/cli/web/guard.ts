// Who may read the viewer. It listens on 127.0.0.1 only, but any page the user opens can make the
// browser send requests there: a request must carry the token printed with the URL (which no other
// site knows), and its Host header must name this server (127.0.0.1:<port> or localhost:<port>), which
// a site that rebinds its own name to 127.0.0.1 cannot fake, since the browser sends that site's name.
// Everything it serves is read-only: any method but GET is refused.
import { randomBytes, timingSafeEqual } from "node:crypto";

/** 256 random bits, URL-safe. */
export const newToken = (): string => randomBytes(32).toString("base64url");

type Verdict = { ok: true } | { ok: false; status: 403 | 405; reason: string };

interface RequestLike {
  method?: string | undefined;
  url?: string | undefined;
  headers: { host?: string | undefined };
}

function hostAllowed(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const wanted = [`127.0.0.1:${port}`, `localhost:${port}`];
  return wanted.includes(host.toLowerCase());
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function checkRequest(request: RequestLike, token: string, port: number): Verdict {
  if (!hostAllowed(request.headers.host, port)) return { ok: false, status: 403, reason: "this viewer answers only requests addressed to 127.0.0.1 or localhost on its port" };
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (!tokenMatches(url.searchParams.get("token"), token)) return { ok: false, status: 403, reason: "open the viewer with the URL hel web printed: it carries the token" };
  if (request.method !== "GET") return { ok: false, status: 405, reason: "this viewer only reads: GET is the one method it answers" };
  return { ok: true };
}
