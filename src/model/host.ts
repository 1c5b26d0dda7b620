// Who serves the API (the `provider` setting) and what a base URL says of its server, in the words
// errors and the key check need: whether it is on this machine (a local server, which needs no key),
// and its host as a person would name it.

/** DeepSeek itself (and the simulator, which plays it), or another host or local server speaking the OpenAI wire format. */
export const PROVIDERS = ["deepseek", "openai-compatible"] as const;
export type Provider = (typeof PROVIDERS)[number];

/** A server on this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(baseURL: string): boolean {
  const host = hostOf(baseURL);
  return host === "localhost" || host.endsWith(".localhost") || /^127(?:\.\d{1,3}){3}$/.test(host) || host === "[::1]" || host === "::1";
}

/**
 * The API key a run sends: DEEPSEEK_API_KEY, or for a local server speaking the OpenAI format none
 * ("", and then no Authorization header is sent); undefined when a key is needed and missing.
 */
export function apiKeyFor(provider: Provider, baseURL: string, env: NodeJS.ProcessEnv): string | undefined {
  return env.DEEPSEEK_API_KEY || (provider === "openai-compatible" && isLoopback(baseURL) ? "" : undefined);
}

/** The host (and port) of a base URL, as errors name who answered; the URL itself when it does not parse. */
export function hostLabel(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).hostname.toLowerCase();
  } catch {
    return "";
  }
}
