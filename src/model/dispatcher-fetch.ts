// The fetch the openai SDK sends hel's requests through: one undici `request()` per call on hel's
// Agent, answered with the part of a WHATWG Response the SDK reads (ok, status, headers, url, a body
// it iterates as bytes, text(), json()). undici's own fetch runs on the same Agent but adds a WHATWG
// layer (webidl checks, web streams, the request body copied twice) that slowed every start-up
// and copies that grow with the conversation. Contract:
// - The request body is sent as given, not copied: it must not change until the response arrives.
// - A compressed answer (gzip, deflate, br) is decoded; node:zlib is loaded only for one.
// - Errors are undici's own (codes such as UND_ERR_BODY_TIMEOUT, ECONNREFUSED), thrown by the call
//   or, once the answer has started, by iterating its body; an abort ends either with an AbortError.
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { HttpHeaders, type HeadersInit } from "./http-headers.js";

export interface FetchInit {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
}

export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly url: string;
  readonly headers: HttpHeaders;
  readonly body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export type Fetch = (input: string | URL, init?: FetchInit) => Promise<FetchResponse>;

export function dispatcherFetch(dispatcher: Dispatcher): Fetch {
  return async (input, init = {}) => {
    const url = new URL(input);
    const answer = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: (init.method ?? "GET").toUpperCase() as Dispatcher.HttpMethod,
      headers: Object.fromEntries(new HttpHeaders(init.headers)),
      body: init.body ?? null,
      signal: init.signal ?? undefined,
    });
    const headers = new HttpHeaders(answer.headers);
    const encoding = headers.get("content-encoding");
    const body: Readable = encoding && encoding !== "identity" ? (await import("./decode-body.js")).decodeBody(answer.body, encoding) : answer.body;
    const text = async (): Promise<string> => {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    };
    return {
      ok: answer.statusCode >= 200 && answer.statusCode < 300,
      status: answer.statusCode,
      url: url.href,
      headers,
      body,
      text,
      json: async () => JSON.parse(await text()) as unknown,
    };
  };
}
