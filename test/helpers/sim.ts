// Shared helpers for the simulator tests: raw HTTP calls, SSE parsing, and an OpenAI client on the sim.
import OpenAI from "openai";

export const KEY = "sk-test-0000abcd";

export function client(url: string, apiKey = KEY): OpenAI {
  return new OpenAI({ baseURL: url, apiKey, maxRetries: 0, timeout: 10_000 });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function post(url: string, body: unknown, init: { key?: string | null; path?: string; contentType?: string } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { "content-type": init.contentType ?? "application/json" };
  if (init.key !== null) headers["authorization"] = `Bearer ${init.key ?? KEY}`;
  const res = await fetch(url + (init.path ?? "/chat/completions"), {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Events of an SSE body: data payloads (parsed unless [DONE]) and comment lines, in order. */
export function sse(text: string): { comments: string[]; data: unknown[]; done: boolean; order: string[] } {
  const comments: string[] = [];
  const data: unknown[] = [];
  const order: string[] = [];
  let done = false;
  for (const block of text.split("\n\n")) {
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        comments.push(line);
        order.push("comment");
      } else if (line.startsWith("data: ")) {
        const payload = line.slice(6);
        if (payload === "[DONE]") {
          done = true;
          order.push("done");
        } else {
          data.push(JSON.parse(payload));
          order.push("data");
        }
      }
    }
  }
  return { comments, data, done, order };
}

export const user = (content: string): { role: "user"; content: string } => ({ role: "user", content });
export const system = (content: string): { role: "system"; content: string } => ({ role: "system", content });

export const READ_FILE = {
  type: "function" as const,
  function: {
    name: "read_file",
    description: "Read a file of the project.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};
export const SEARCH_REPLACE = {
  type: "function" as const,
  function: {
    name: "search_replace",
    description: "Replace one exact, unique occurrence of old_string with new_string in a file.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } },
      required: ["path", "old_string", "new_string"],
    },
  },
};
export const DELEGATE = {
  type: "function" as const,
  function: {
    name: "delegate_task",
    description: "Hand a self-contained task to a subagent.",
    parameters: { type: "object", properties: { task: { type: "string" } }, required: ["task"] },
  },
};
