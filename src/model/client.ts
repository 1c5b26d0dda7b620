// The model client: sends one chat-completions request to DeepSeek (or the simulator) through the
// openai SDK, streams the answer, and retries what is worth retrying (see retry.ts).
//
// The SDK's own retries are off so that one policy decides. HTTP goes through an undici Agent (via
// dispatcher-fetch.ts, not undici's fetch) whose body timeout is the stream's idle limit: any bytes,
// keep-alive comments included, reset it, so a queued request survives but a stream that sends
// nothing at all for 5 minutes is abandoned. Its connections are made by early-connection.ts, which
// opens one before a request needs it when the start or the user's typing says one will follow.
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { Agent, interceptors } from "undici";
import type { ChatRequest, FinishReason, Usage, AssistantMessage } from "../wire/messages.js";
import { dispatcherFetch, type Fetch, type FetchResponse } from "./dispatcher-fetch.js";
import { apiConnections, type ApiConnections } from "./early-connection.js";
import { capacityError, connectionError, ModelError, statusError, type Settings } from "./errors.js";
import type { Provider } from "./host.js";
import { retryDelay, type Failure } from "./retry.js";
import { sseData } from "./sse-decoder.js";
import { StreamAccumulator, type ChunkLike } from "./stream-accumulator.js";
import { z } from "../zod.js";
import { ByteWriter } from "../wire/byte-writer.js";
import { requestBytes } from "../wire/serialize.js";
import { redactSecrets } from "../redact.js";
import { monotonicMs } from "../clock.js";

export interface ModelClientOptions {
  baseURL: string;
  /** "": none, and no Authorization header is sent. */
  apiKey: string;
  /** A stream silent for this long is abandoned. Default 5 minutes. */
  idleTimeoutMs?: number;
  /** First retry delay; doubles each try. Default 1 s. */
  retryBaseMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Where the user chooses the model: the flags (default), or the interactive prompt's commands. Said in a refused request's advice. */
  settings?: Settings;
  /** The connections to the API, when the start opened one already (early-connection.ts); else the client's own. */
  connections?: ApiConnections | null;
  /** Who serves baseURL, as errors name it (errors.ts). Default deepseek. */
  provider?: Provider;
}

export interface StreamHandlers {
  onAttempt?(attempt: number): void;
  onRetry?(info: { attempt: number; delayMs: number; reason: string; status: number }): void;
  onText?(text: string): void;
  onReasoning?(text: string): void;
}

export interface ModelTurn {
  message: AssistantMessage;
  finishReason: FinishReason | null;
  usage: Usage | undefined;
  status: number;
  durationMs: number;
  attempts: number;
}

export interface ModelClient {
  readonly baseURL: string;
  complete(body: ChatRequest, signal: AbortSignal, handlers?: StreamHandlers): Promise<ModelTurn>;
  /** The ids of the models the API lists (GET /models); throws a ModelError with one line for a person. */
  listModels(signal: AbortSignal): Promise<string[]>;
  /** A request will follow soon (the user is typing one): opens a connection for it unless one is open. */
  warm(): void;
  close(): Promise<void>;
}

const DEFAULT_IDLE_MS = 5 * 60_000;
/** GET /models: the ids are what hel reads of it. */
const ModelListSchema = z.array(z.looseObject({ id: z.string().min(1) }));
// DeepSeek closes a request that has not started within 10 minutes; wait a little longer than that.
const HEADERS_TIMEOUT_MS = 11 * 60_000;

export function createModelClient(options: ModelClientOptions): ModelClient {
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  // HTTP/1.1 only (allowH2 off, undici's default, spelled out): the bundle leaves undici's HTTP/2
  // client out (rolldown.config.mjs), and one streamed answer at a time gains nothing from it.
  const connections = options.connections ?? apiConnections(options.baseURL);
  const agent = new Agent({ bodyTimeout: idleMs, headersTimeout: HEADERS_TIMEOUT_MS, allowH2: false, connect: connections.connect });
  // Redirects are followed as fetch follows them (a gateway in front of the API may send a 307);
  // undici drops the Authorization header when one leads to another origin, so the key stays home.
  const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 5 }));
  const sdk = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    // No key (a local server): no Authorization header at all, rather than an empty Bearer.
    ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    maxRetries: 0,
    timeout: HEADERS_TIMEOUT_MS,
    fetch: withFlatErrors(dispatcherFetch(dispatcher)) as unknown as typeof fetch,
  });
  const sleep = options.sleep ?? abortableSleep;
  const settings = options.settings ?? "flags";
  const provider = options.provider ?? "deepseek";
  const baseMs = options.retryBaseMs ?? 1000;
  // The memory the last answered body was written into, for the next: memory a process touches for
  // the first time is slow to fault in. A call takes it (or, while another call has it, makes its
  // own) and gives it back once its answer has arrived in full, when the server has read every byte
  // of the body and nothing sends them any more; a call that fails lets its memory go.
  let spare: ByteWriter | null = null;

  async function attemptOnce(body: Buffer, signal: AbortSignal, handlers: StreamHandlers) {
    const acc = new StreamAccumulator();
    // The SDK and undici leave a listener on the signal they are given; the turn's signal lives for
    // many requests, so each attempt gets a signal of its own, linked to it only while it runs.
    const attempt = new AbortController();
    const forward = () => attempt.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
    try {
      // The SDK sends the request and turns an error status into an APIError; the answer's events
      // are read here (sse-decoder.ts), in work linear in their size.
      const response = (await sdk.post("/chat/completions", { body, headers: { "content-type": "application/json" }, signal: attempt.signal }).asResponse()) as unknown as FetchResponse;
      let done = false;
      for await (const data of sseData(response.body)) {
        // What follows [DONE] is read, so the connection can serve the next request, but not used.
        if (done) continue;
        if (data.startsWith("[DONE]")) {
          done = true;
          continue;
        }
        const chunk = JSON.parse(data) as ChunkLike & { error?: unknown };
        // An error sent after the answer began: the stream broke off.
        if (chunk.error) throw new Error("the server sent an error inside the answer stream");
        const { text, reasoning } = acc.push(chunk);
        if (reasoning) handlers.onReasoning?.(reasoning);
        if (text) handlers.onText?.(text);
      }
      // An abort just as the last event arrived ends the loop as if the answer were complete.
      if (signal.aborted) throw new ModelError("aborted", "the request was aborted");
      const result = acc.result();
      if (result.finishReason === null) return { failure: { kind: "dropped" } as Failure, acc };
      if (result.finishReason === "insufficient_system_resource") return { failure: { kind: "insufficient_system_resource", answerStarted: hasAnswer(result.message) } as Failure, acc };
      return { result };
    } catch (error) {
      if (signal.aborted || error instanceof APIUserAbortError) throw new ModelError("aborted", "the request was aborted");
      return { failure: classify(error, acc.started), acc, error };
    } finally {
      signal.removeEventListener("abort", forward);
    }
  }

  return {
    baseURL: options.baseURL,
    async complete(body, signal, handlers = {}) {
      const started = monotonicMs();
      const writer = spare ?? new ByteWriter();
      spare = null;
      let bytes: Buffer | undefined;
      for (let attempt = 1; ; attempt++) {
        handlers.onAttempt?.(attempt);
        // The body goes out as bytes hel serialized itself: the conversation's JSON is cached per
        // message (wire/serialize.ts), and DeepSeek-only fields (thinking, reasoning_content) pass as
        // sent. The bytes are this call's own, so every attempt sends them uncopied.
        bytes ??= requestBytes(body, writer);
        const outcome = await attemptOnce(bytes, signal, handlers);
        if (outcome.result) {
          spare = writer;
          const { message, finishReason, usage } = outcome.result;
          return { message, finishReason, usage, status: 200, durationMs: monotonicMs() - started, attempts: attempt };
        }
        const failure = outcome.failure;
        const said = whatWasSaid(outcome.error, options.apiKey);
        const delay = retryDelay(failure, attempt, baseMs);
        if (delay === null) throw finalError(failure, said, options.baseURL, attempt, outcome.error, settings, provider);
        handlers.onRetry?.({ attempt, delayMs: delay, reason: describe(failure, said), status: failure.kind === "status" ? failure.status : 0 });
        await sleep(delay, signal).catch(() => {
          throw new ModelError("aborted", "the request was aborted");
        });
      }
    },
    // At exit nothing in flight is worth waiting for: an aborted request may still hold its socket.
    async listModels(signal) {
      try {
        const page = await sdk.models.list({ signal });
        return ModelListSchema.parse(page.data).map((model) => model.id);
      } catch (error) {
        const said = whatWasSaid(error, options.apiKey);
        if (error instanceof APIError && typeof error.status === "number") throw statusError(error.status, said.apiMessage, options.baseURL, 1, settings, provider, said.body);
        if (error instanceof APIConnectionError) throw connectionError(options.baseURL, said.cause, 1, provider);
        throw new ModelError("stream", `${options.baseURL}/models is not a list of models (${said.cause || String(error)}) — check --base-url / HEL_BASE_URL`);
      }
    },
    warm() {
      // One already open, busy or idle, serves the next request; undici closes an idle one after a
      // few seconds, so a user who has been reading finds none.
      const pool = connections.origin === null ? undefined : agent.stats[connections.origin];
      if (!pool?.connected) connections.open();
    },
    close: () => {
      connections.close();
      return agent.destroy();
    },
  };
}

/** Text or tool calls the user may already have seen; reasoning alone is not shown. */
const hasAnswer = (message: AssistantMessage): boolean => Boolean(message.content) || Boolean(message.tool_calls?.length);

function classify(error: unknown, answerStarted: boolean): Failure {
  if (error instanceof APIError && typeof error.status === "number") {
    return {
      kind: "status",
      status: error.status,
      retryAfter: error.headers?.get("retry-after") ?? null,
      retryAfterMs: error.headers?.get("retry-after-ms") ?? null,
    };
  }
  if (hasCode(error, "UND_ERR_BODY_TIMEOUT")) return { kind: "idle", answerStarted };
  if (error instanceof APIConnectionError) return { kind: "connection" };
  // Once the response began, a broken socket is a dropped stream, which is not retried.
  return { kind: "dropped" };
}

/** The texts of a failure that come from outside hel: the server's error message and the network's cause. */
interface Said {
  apiMessage: string;
  cause: string;
  /** The server's error object, for what its fields say (a refusal for length, the window it names). */
  body: unknown;
}

/** A proxy may quote the request's Authorization header in its error body, so the key is taken out here. */
function whatWasSaid(error: unknown, apiKey: string): Said {
  return { apiMessage: redactSecrets(apiMessage(error), [apiKey]), cause: redactSecrets(causeText(error), [apiKey]), body: error instanceof APIError ? error.error : undefined };
}

/**
 * A connection failure keeps the last attempt's own error as its cause, for HEL_DEBUG=1 to print
 * with its stack; an HTTP error's body is the server's, which a proxy may have filled with the key.
 */
function finalError(failure: Failure, said: Said, baseURL: string, attempts: number, cause: unknown, settings: Settings, provider: Provider): ModelError {
  const error = describeFinal(failure, said, baseURL, attempts, settings, provider);
  if (failure.kind === "connection" && cause !== undefined) error.cause = cause;
  return error;
}

function describeFinal(failure: Failure, said: Said, baseURL: string, attempts: number, settings: Settings, provider: Provider): ModelError {
  switch (failure.kind) {
    case "status":
      return statusError(failure.status, said.apiMessage, baseURL, attempts, settings, provider, said.body);
    case "connection":
      return connectionError(baseURL, said.cause, attempts, provider);
    case "idle":
      return new ModelError("stream", `the answer stream from ${baseURL} sent nothing for too long and was abandoned — try again; the conversation is kept`);
    case "dropped":
      return new ModelError("stream", `the answer stream from ${baseURL} broke off before it finished — try again; the conversation is kept`);
    case "insufficient_system_resource":
      return capacityError(attempts, baseURL, provider);
  }
}

function describe(failure: Failure, said: Said): string {
  switch (failure.kind) {
    case "status":
      return `HTTP ${failure.status}`;
    case "connection":
      return `connection failed (${said.cause})`;
    case "idle":
      return "no data from the server";
    case "dropped":
      return "stream dropped";
    case "insufficient_system_resource":
      return "insufficient_system_resource";
  }
}

/**
 * vLLM and SGLang send an error as a flat object ({"object":"error","message",…}), where DeepSeek, OpenAI
 * and llama.cpp nest it under `error`; the SDK reads only `error`, so a flat one is given to it nested.
 */
function withFlatErrors(fetch: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.ok) return response;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const flat = typeof parsed === "object" && parsed !== null && !("error" in parsed) && typeof (parsed as { message?: unknown }).message === "string";
    const body = flat ? JSON.stringify({ error: parsed }) : text;
    return { ...response, text: async () => body, json: async () => JSON.parse(body) as unknown };
  };
}

function apiMessage(error: unknown): string {
  if (error instanceof APIError) {
    const inner = (error.error as { message?: unknown } | undefined)?.message;
    if (typeof inner === "string") return inner;
  }
  return "";
}

/** The error and its causes, outermost first: undici hides the useful code a few levels down. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

function causeText(error: unknown): string {
  const code = causes(error)
    .map((e) => (e as { code?: unknown }).code)
    .find((c): c is string => typeof c === "string");
  return code ?? (error instanceof Error ? error.message : String(error));
}

function hasCode(error: unknown, code: string): boolean {
  return causes(error).some((e) => (e as { code?: unknown }).code === code);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
