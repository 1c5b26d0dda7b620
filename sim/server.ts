// The simulator's HTTP server (node:http): DeepSeek's routes, errors, streaming and non-streaming
// answers, prefix-cache usage, and scripted faults. Contract: startSimulator() listens on 127.0.0.1 and
// answers each chat request from the script (one step per request that passes validation, in arrival
// order) or, when the script is empty, from the policy. Every request is logged in `requests` as received,
// with how many others were being answered when it arrived.
// All state (script, cache, log, timers) belongs to one Simulator; nothing is shared between instances,
// and concurrent requests (a parent and its child) are served independently.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Usage } from "../src/wire/messages.js";
import { cacheSpace, PrefixCache } from "./cache.js";
import { ApiError, type ApiErrorInfo, defaultStatusError, errorBody, missingAuth, unauthorized } from "./errors.js";
import { argumentFragments, playReply, textDeltas, type Turn, turnSegments } from "./play.js";
import { openAiUsage, overflowBody, overflows } from "./openai-compatible.js";
import { resolvePolicy } from "./policies.js";
import { promptSegments, tokenizeSegments } from "./template.js";
import type { SimFault, SimOptions, SimReply, SimRequestRecord, SimStep, Simulator } from "./types.js";
import { checkContext, DEFAULT_CONTEXT_WINDOW, MAX_OUTPUT_TOKENS, MODELS, validateRequest, type Validated } from "./validate.js";

export type * from "./types.js";

const FINGERPRINT = "fp_sim0000000_prod0000_fp8_kvcache";

/** One answer to send, as a whole JSON body or as a stream. */
interface Answer {
  ex: Exchange;
  v: Validated;
  turn: Turn;
  /** The usage the response carries; none when the server omits it. */
  usage: object | undefined;
  meta: ReplyMeta;
  /** Drop the connection after this many chunks (a fault). */
  dropAfter: number | undefined;
}

/** The fields every response and chunk of one answer repeat. */
interface ReplyMeta {
  id: string;
  created: number;
  model: string;
  system_fingerprint: string;
}

const MODEL_INFO: Record<string, object> = {
  "deepseek-flash": {
    id: "deepseek-flash",
    object: "model",
    owned_by: "deepseek",
    name: "DeepSeek-V4.1-Flash",
    context_window: DEFAULT_CONTEXT_WINDOW,
    max_output_tokens: MAX_OUTPUT_TOKENS,
    input_modalities: ["text", "image"],
    output_modalities: ["text"],
    effort: { supported_levels: ["low", "high", "max"], default_level: "high" },
  },
  "deepseek-v4-pro": {
    id: "deepseek-v4-pro",
    object: "model",
    owned_by: "deepseek",
    name: "DeepSeek-V4-Pro",
    context_window: DEFAULT_CONTEXT_WINDOW,
    max_output_tokens: MAX_OUTPUT_TOKENS,
    input_modalities: ["text"],
    output_modalities: ["text"],
    effort: { supported_levels: ["low", "high", "max"], default_level: "high" },
  },
};

function isFaultStep(step: SimStep): step is { fault: SimFault } {
  return typeof step === "object" && step !== null && "fault" in step;
}
function isFaultsStep(step: SimStep): step is { faults: SimFault[]; reply?: SimReply } {
  return typeof step === "object" && step !== null && "faults" in step;
}

/** The reply a step ends with; one of faults alone ends with an empty answer. */
function replyOf(step: SimStep): SimReply {
  if (isFaultStep(step)) return { content: null };
  if (isFaultsStep(step)) return step.reply ?? { content: null };
  return step;
}

/** The error, its message followed by the request's headers when `req` is given. */
function echoed(info: ApiErrorInfo, req: IncomingMessage | undefined): ApiErrorInfo {
  if (!req) return info;
  const headers = Object.entries(req.headers).map(([name, value]) => `${name}: ${String(value)}`);
  return { ...info, message: `${info.message} (request headers: ${headers.join("; ")})` };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** One exchange: knows whether headers went out and whether the client is still there. */
class Exchange {
  gone = false;
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly record: SimRequestRecord,
    private readonly stop: AbortSignal,
  ) {
    res.on("close", () => {
      this.gone = true;
    });
  }

  get alive(): boolean {
    return !this.gone && !this.stop.aborted && !this.res.destroyed;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (!this.alive || ms <= 0) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        this.res.off("close", done);
        this.stop.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.res.on("close", done);
      this.stop.addEventListener("abort", done);
    });
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}, contentType = true): void {
    this.record.status = status;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    this.res.writeHead(status, {
      ...(contentType ? { "Content-Type": "application/json" } : {}),
      "Content-Length": String(Buffer.byteLength(text)),
      ...headers,
    });
    this.res.end(text);
  }

  error(e: ApiErrorInfo, headers: Record<string, string> = {}, contentType = true): void {
    this.json(e.status, errorBody(e), headers, contentType);
  }

  /** 200 headers now (keep-alives and stalls need them out before the answer exists). */
  open(stream: boolean): void {
    if (this.res.headersSent) return;
    this.record.status = 200;
    this.res.writeHead(200, {
      "Content-Type": stream ? "text/event-stream; charset=utf-8" : "application/json",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
    });
    this.res.flushHeaders();
  }

  write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (!this.alive) return resolve();
      this.res.write(text, () => resolve());
    });
  }

  reset(): void {
    const socket = this.req.socket;
    if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
    else socket.destroy();
    this.gone = true;
  }
}

export async function startSimulator(opts: SimOptions = {}): Promise<Simulator> {
  const script: SimStep[] = [...(opts.script ?? [])];
  const policy = resolvePolicy(opts.policy);
  const cache = new PrefixCache(opts.blockSize ?? 64);
  const contextWindow = opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const openAiCompatible = opts.mode === "openai-compatible";
  const enforceReasoningContent = opts.enforceReasoningContent ?? !openAiCompatible;
  const enforceArgumentsJson = opts.enforceArgumentsJson ?? true;
  const reasoningField = opts.reasoningField ?? "reasoning_content";
  const apiKeys = opts.apiKeys ? new Set(opts.apiKeys) : undefined;
  const requests: SimRequestRecord[] = [];
  /** Chat requests arrived and not yet answered. */
  let open = 0;
  const stop = new AbortController();
  let requestIndex = 0;

  function authenticate(ex: Exchange): string | undefined {
    const header = ex.req.headers.authorization;
    const m = typeof header === "string" ? /^Bearer\s+(\S.*)$/i.exec(header.trim()) : null;
    // A server that is not DeepSeek's (a local one) needs no key unless keys were given.
    if (!m && openAiCompatible && !apiKeys) return "";
    if (!m) {
      // Live: a missing Authorization header gets a 401 without a content type.
      ex.error(missingAuth(), {}, false);
      return undefined;
    }
    const key = m[1]!.trim();
    if (apiKeys && !apiKeys.has(key)) {
      ex.error(unauthorized(key));
      return undefined;
    }
    return key;
  }

  async function chat(ex: Exchange, rawBody: string): Promise<void> {
    const ctype = String(ex.req.headers["content-type"] ?? "");
    if (!/^application\/(?:[\w.+-]*\+)?json\b/i.test(ctype))
      return ex.error({
        status: 415,
        message: "Expected request with `Content-Type: application/json`",
        type: "invalid_request_error",
        code: "invalid_request_error",
      });
    const key = authenticate(ex);
    if (key === undefined) return;
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch (e) {
      throw new ApiError(400, `Failed to parse the request body as JSON: ${(e as Error).message}`);
    }
    const v = validateRequest(body, { enforceReasoningContent, enforceArgumentsJson, anyModel: openAiCompatible });
    const prompt = tokenizeSegments(promptSegments(v.request));
    if (openAiCompatible) {
      const shape = opts.overflow ?? "vllm";
      if (overflows(shape, contextWindow, prompt.ends.length, v.request.max_tokens)) return ex.json(400, overflowBody(shape, contextWindow, prompt.ends.length, v.request.max_tokens ?? 0));
    } else checkContext(prompt.ends.length, v.maxTokens, contextWindow);

    const index = requestIndex++;
    const scripted = script.shift();
    const step = scripted ?? policy(v.request, { requestIndex: index });
    let faults: SimFault[] = [];
    let reply: SimReply | undefined;
    if (isFaultStep(step)) faults = [step.fault];
    else if (isFaultsStep(step)) {
      faults = step.faults;
      reply = step.reply;
    } else reply = step;

    let dropAfter: number | undefined;
    for (const fault of faults) {
      if (!ex.alive) return;
      switch (fault.kind) {
        case "delay":
          await ex.sleep(fault.ms);
          break;
        case "reset":
          ex.reset();
          return;
        case "status": {
          const info = echoed(defaultStatusError(fault.status), fault.echoHeaders ? ex.req : undefined);
          const headers: Record<string, string> = fault.retryAfter !== undefined ? { "Retry-After": fault.retryAfter } : {};
          const payload = fault.body !== undefined ? fault.body : errorBody(info);
          if (!ex.res.headersSent) return ex.json(fault.status, payload, headers);
          // Headers already went out (after keep-alives): the error rides in the body, as DeepSeek does.
          const text = typeof payload === "string" ? payload : JSON.stringify(payload);
          ex.res.end(v.stream ? `data: ${text}\n\n` : text);
          return;
        }
        case "stall":
          ex.open(v.stream);
          await ex.sleep(fault.ms);
          break;
        case "keepalive":
          ex.open(v.stream);
          for (let i = 0; i < fault.count && ex.alive; i++) {
            await ex.write(v.stream ? ": keep-alive\n\n" : "\n");
            await ex.sleep(fault.everyMs);
          }
          break;
        case "drop":
          dropAfter = fault.afterChunks;
          break;
      }
    }
    if (!ex.alive) return;

    // A scripted step without a reply is answered by the policy after its faults, as before policies could fault.
    reply ??= scripted === undefined ? { content: null } : replyOf(policy(v.request, { requestIndex: index }));
    const turn = playReply(reply, { thinking: v.thinking, maxTokens: v.maxTokens });

    // Look up before storing: a request never hits the units it creates itself.
    const space = cacheSpace(key, v.model, (body as Record<string, unknown>)["user_id"]);
    const promptHashes = cache.blockHashes(prompt);
    const hit = cache.hit(space, promptHashes);
    cache.store(space, promptHashes);
    const full = tokenizeSegments(turnSegments(turn), { text: prompt.text, ends: prompt.ends.slice() });
    cache.store(space, cache.blockHashes(full, promptHashes));

    const promptTokens = prompt.ends.length;
    const usage: Usage = {
      prompt_tokens: promptTokens,
      completion_tokens: turn.completionTokens,
      total_tokens: promptTokens + turn.completionTokens,
      prompt_tokens_details: { cached_tokens: hit },
      completion_tokens_details: { reasoning_tokens: turn.reasoningTokens },
      prompt_cache_hit_tokens: hit,
      prompt_cache_miss_tokens: promptTokens - hit,
    };
    ex.record.usage = usage;
    // What the response carries: DeepSeek's usage, OpenAI's shape of it, or none (the mode's, or the step's).
    const sent = opts.omitUsage || reply.usage === "omitted" ? undefined : openAiCompatible || reply.usage === "openai" ? openAiUsage(usage) : usage;
    const meta = {
      id: randomUUID(),
      created: Math.floor(Date.now() / 1000),
      model: v.model,
      system_fingerprint: FINGERPRINT,
    };
    const answer: Answer = { ex, v, turn, usage: sent, meta, dropAfter };
    if (v.stream) await stream(answer);
    else await whole(answer);
  }

  async function whole({ ex, v, turn, usage, meta, dropAfter }: Answer): Promise<void> {
    const message: Record<string, unknown> = { role: "assistant", content: turn.content };
    if (v.thinking) message[reasoningField] = turn.reasoning ?? "";
    if (turn.toolCalls.length > 0)
      message["tool_calls"] = turn.toolCalls.map((c, index) => ({
        index,
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
    const body = {
      id: meta.id,
      object: "chat.completion",
      created: meta.created,
      model: meta.model,
      system_fingerprint: meta.system_fingerprint,
      choices: [{ index: 0, message, logprobs: null, finish_reason: turn.finishReason }],
      ...(usage ? { usage } : {}),
    };
    const text = JSON.stringify(body);
    if (dropAfter !== undefined) {
      ex.open(false);
      await ex.write(text.slice(0, Math.floor(text.length / 2)));
      ex.reset();
      return;
    }
    if (ex.res.headersSent) {
      ex.res.end(text);
      return;
    }
    ex.json(200, text);
  }

  async function stream({ ex, v, turn, usage, meta, dropAfter }: Answer): Promise<void> {
    const base = { id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, system_fingerprint: meta.system_fingerprint };
    const chunk = (delta: object, finish: string | null = null, last?: object): object => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      // DeepSeek: with include_usage every chunk has `usage` (null until the last); without it only the last.
      // A server that omits usage sends no `usage` key at all.
      ...(last ? { usage: last } : v.includeUsage && usage ? { usage: null } : {}),
    });
    const r = reasoningField;
    const deltas: object[] = [];
    deltas.push(v.thinking ? { role: "assistant", content: null, [r]: "" } : { role: "assistant", content: "" });
    if (v.thinking && turn.reasoning) for (const piece of textDeltas(turn.reasoning)) deltas.push({ content: null, [r]: piece });
    for (const piece of textDeltas(turn.content)) deltas.push(v.thinking ? { content: piece, [r]: null } : { content: piece });
    turn.toolCalls.forEach((c, index) => {
      deltas.push({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
      for (const frag of argumentFragments(c.arguments)) deltas.push({ tool_calls: [{ index, function: { arguments: frag } }] });
    });
    const chunks = deltas.map((d) => chunk(d));
    chunks.push(chunk(v.thinking ? { content: "", [r]: null } : { content: "" }, turn.finishReason, usage));

    ex.open(true);
    let sent = 0;
    for (const c of chunks) {
      if (dropAfter !== undefined && sent >= dropAfter) break;
      if (!ex.alive) return;
      await ex.write(`data: ${JSON.stringify(c)}\n\n`);
      sent++;
      // Let each chunk leave on its own, so clients really reassemble a stream.
      await new Promise((r) => setImmediate(r));
    }
    if (dropAfter !== undefined) {
      ex.reset();
      return;
    }
    if (!ex.alive) return;
    ex.res.end("data: [DONE]\n\n");
  }

  async function handle(ex: Exchange): Promise<void> {
    const raw = await readBody(ex.req);
    if (raw.length > 0) {
      try {
        ex.record.body = JSON.parse(raw);
      } catch {
        ex.record.body = raw;
      }
    }
    const url = new URL(ex.req.url ?? "/", "http://sim");
    const path = url.pathname.replace(/\/+$/, "").replace(/^\/(?:v1|beta)(?=\/)/, "");
    const method = ex.req.method ?? "GET";
    const route = (allowed: string): boolean => {
      if (method === allowed) return true;
      ex.res.setHeader("Allow", allowed);
      ex.error({ status: 405, message: "Method Not Allowed", type: "invalid_request_error", code: "invalid_request_error" });
      return false;
    };
    if (path === "/chat/completions") {
      if (!route("POST")) return;
      ex.record.overlapping = open++;
      try {
        await chat(ex, raw);
      } finally {
        open--;
      }
      return;
    }
    if (path === "/models" || path.startsWith("/models/") || path === "/user/balance") {
      if (!route("GET") || authenticate(ex) === undefined) return;
      if (path === "/models") return ex.json(200, { object: "list", data: MODELS.map((m) => MODEL_INFO[m]) });
      if (path === "/user/balance")
        return ex.json(200, {
          is_available: true,
          balance_infos: [{ currency: "USD", total_balance: "100.00", granted_balance: "0.00", topped_up_balance: "100.00" }],
        });
      const info = MODEL_INFO[decodeURIComponent(path.slice("/models/".length))];
      if (info) return ex.json(200, info);
    }
    ex.error({ status: 404, message: "Not Found", type: "invalid_request_error", code: "invalid_request_error" });
  }

  const server: Server = createServer((req, res) => {
    const record: SimRequestRecord = { body: undefined, headers: { ...req.headers }, status: 0 };
    requests.push(record);
    const ex = new Exchange(req, res, record, stop.signal);
    handle(ex).catch((e: unknown) => {
      if (!ex.alive) return;
      const info: ApiErrorInfo = e instanceof ApiError ? e : { status: 500, message: `simulator failure: ${(e as Error)?.message ?? String(e)}`, type: "server_error", code: "server_error" };
      if (ex.res.headersSent) ex.res.end();
      else ex.error(info);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push(...steps: SimStep[]) {
      script.push(...steps);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        stop.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
