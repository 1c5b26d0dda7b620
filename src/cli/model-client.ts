// The model client a conversation sends through: DeepSeek's API at --base-url, on the connections the
// project's opening began when there are any, with the stream's idle timeout and the retry delay the
// environment may shorten (the tests and evals do), the advice of a refused request naming the flags
// or the prompt's commands, and with HEL_DEBUG=1 a failed request's stack printed besides the one
// line the turn reports.
import { createModelClient, type ModelClient } from "../model/client.js";
import type { ApiConnections } from "../model/early-connection.js";
import { ModelError, type Settings } from "../model/errors.js";

/** `settings`: where the user changes the model, which a refused request's advice names. */
export function openModelClient(baseURL: string, apiKey: string, env: NodeJS.ProcessEnv, settings: Settings, connections?: ApiConnections): ModelClient {
  const connected = createModelClient({
    baseURL,
    apiKey,
    settings,
    connections,
    ...envNumber(env, "HEL_STREAM_IDLE_MS", (v) => ({ idleTimeoutMs: v })),
    ...envNumber(env, "HEL_RETRY_BASE_MS", (v) => ({ retryBaseMs: v })),
  });
  return env.HEL_DEBUG === "1" ? printingStacks(connected) : connected;
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
