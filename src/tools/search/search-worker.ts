// The search engine's own thread: runs one grep or find_files request at a time for search-thread.ts,
// which ends the thread when the request is cancelled or stuck. It marks its progress in the memory
// it was started with (progress.ts) and answers each request with one reply.
import { parentPort, workerData } from "node:worker_threads";
import type { FindFilesArgs, GrepArgs } from "./args.js";
import { runFindFiles } from "./find-files-search.js";
import { runGrep } from "./grep-search.js";
import { SharedProgress } from "./progress.js";
import type { SearchScope } from "./project-walk.js";
import { ToolError } from "../types.js";

/** The scope without its signal: a cancelled search's thread is ended, not told. */
export type ThreadScope = Omit<SearchScope, "signal">;

export type SearchCall = { tool: "grep"; args: GrepArgs } | { tool: "find_files"; args: FindFilesArgs };

export type SearchRequest = SearchCall & { scope: ThreadScope };

export type SearchReply = { ok: true; text: string } | { ok: false; toolError: boolean; message: string };

const progress = new SharedProgress(workerData as SharedArrayBuffer);
const signal = new AbortController().signal;

async function answer(request: SearchRequest): Promise<SearchReply> {
  const scope = { ...request.scope, signal };
  try {
    const text = request.tool === "grep" ? await runGrep(request.args, scope, progress) : await runFindFiles(request.args, scope, progress);
    return { ok: true, text };
  } catch (e) {
    return { ok: false, toolError: e instanceof ToolError, message: e instanceof Error ? e.message : String(e) };
  }
}

parentPort?.on("message", (request: SearchRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});
