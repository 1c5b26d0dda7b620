// DeepSeek's error body and the texts it uses, in one place, so every refusal the simulator makes has the
// shape clients parse: {"error":{"message","type","param":null,"code"}}. Texts the live API is known to
// send are copied as it sends them; the rest follow the same style.

export interface ApiErrorInfo {
  status: number;
  message: string;
  type: string;
  code: string;
}

export class ApiError extends Error implements ApiErrorInfo {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
    readonly code = "invalid_request_error",
  ) {
    super(message);
  }
}

export function errorBody(e: ApiErrorInfo): { error: { message: string; type: string; param: null; code: string } } {
  return { error: { message: e.message, type: e.type, param: null, code: e.code } };
}

/** The error a bare status fault answers with, per DeepSeek's error-code table. */
export function defaultStatusError(status: number): ApiErrorInfo {
  const known: Record<number, [string, string]> = {
    400: ["Invalid request body format", "invalid_request_error"],
    401: ["Authentication Fails, Your api key: ****abcd is invalid", "authentication_error"],
    402: ["Insufficient Balance", "unknown_error"],
    422: ["Invalid Parameters", "invalid_request_error"],
    429: ["Rate Limit Reached: you are sending requests too quickly, please pace your requests", "rate_limit_error"],
    500: ["Server Error: the server encountered an issue, please retry your request after a brief wait", "server_error"],
    502: ["Bad Gateway", "server_error"],
    503: ["Server Overloaded: the server is overloaded due to high traffic, please retry after a brief wait", "server_error"],
    504: ["Gateway Timeout", "server_error"],
  };
  const [message, type] = known[status] ?? [`HTTP ${status}`, status >= 500 ? "server_error" : "invalid_request_error"];
  return { status, message, type, code: "invalid_request_error" };
}

export const unauthorized = (key: string): ApiError => new ApiError(401, `Authentication Fails, Your api key: ****${key.slice(-4)} is invalid`, "authentication_error");

export const missingAuth = (): ApiError => new ApiError(401, "Authentication Fails (auth header format should be Bearer sk-...)", "authentication_error");

export const unknownModel = (model: string, supported: readonly string[]): ApiError => new ApiError(400, `The supported API model names are ${supported.join(", ")}, but you passed ${model}.`);

export const contextTooLong = (window: number, prompt: number, completion: number): ApiError =>
  new ApiError(
    400,
    `This model's maximum context length is ${window} tokens. However, you requested ${prompt + completion} tokens ` +
      `(${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
  );

export const missingReasoning = (): ApiError => new ApiError(400, "The `reasoning_content` in the thinking mode must be passed back to the API.");

/** serde-style 422, as DeepSeek's JSON extractor answers a body of the wrong shape. */
export const badShape = (detail: string): ApiError => new ApiError(422, `Failed to deserialize the JSON body into the target type: ${detail}`);
