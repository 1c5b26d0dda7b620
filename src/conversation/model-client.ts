// The model client a conversation sends through: DeepSeek's API at --base-url, on the connections the
// project's opening began when there are any, with the stream's idle timeout and the retry delay the
// environment may shorten (the tests and evals do), the advice of a refused request naming the flags
// or the prompt's commands, and with HEL_DEBUG=1 a failed request's stack printed besides the one
// line the turn reports. The models the API lists are asked once, when the user types /model.
import { createModelClient, type ModelClient } from "../model/client.js";
import type { ApiConnections } from "../model/early-connection.js";
import { ModelError, type Settings } from "../model/errors.js";
import type { Provider } from "../model/host.js";

/** `settings`: where the user changes the model, which a refused request's advice names. */
export function openModelClient(baseURL: string, apiKey: string, env: NodeJS.ProcessEnv, settings: Settings, connections?: ApiConnections, provider?: Provider): ModelClient {
  const connected = createModelClient({
    baseURL,
    apiKey,
    settings,
    connections,
    ...(provider ? { provider } : {}),
    ...envNumber(env, "HEL_STREAM_IDLE_MS", (v) => ({ idleTimeoutMs: v })),
    ...envNumber(env, "HEL_RETRY_BASE_MS", (v) => ({ retryBaseMs: v })),
  });
  return env.HEL_DEBUG === "1" ? printingStacks(connected) : connected;
}

/** GET /models: a server that does not answer in this long is reported. */
const LIST_MODELS_MS = 10_000;

/** The ids of the models the API lists, asked once (again after a failure), or why they could not be had. */
export function modelLister(client: ModelClient): () => Promise<{ ids: string[] } | { error: string }> {
  let listed: Promise<string[]> | null = null;
  return async () => {
    listed ??= client.listModels(AbortSignal.timeout(LIST_MODELS_MS));
    try {
      return { ids: await listed };
    } catch (error) {
      listed = null;
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
}

function printingStacks(client: ModelClient): ModelClient {
  return {
    baseURL: client.baseURL,
    close: () => client.close(),
    listModels: (signal) => client.listModels(signal),
    warm: () => client.warm(),
    complete: (body, signal, handlers) =>
      client.complete(body, signal, handlers).catch((error: unknown) => {
        if (!(error instanceof ModelError && error.kind === "aborted")) console.error(error);
        throw error;
      }),
  };
}

function envNumber<T>(env: NodeJS.ProcessEnv, name: string, make: (value: number) => T): T | Record<string, never> {
  const value = Number(env[name]);
  return env[name] && Number.isFinite(value) && value > 0 ? make(value) : {};
}
