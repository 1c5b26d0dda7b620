// The search engine's own thread: runs one grep or find_files request at a time for search-thread.ts,
// which ends the thread when the request is cancelled or stuck. It marks its progress in the memory
// it was started with (progress.ts) and answers each request with one reply.
import { parentPort, workerData } from "node:worker_threads";
import type { FindFilesArgs, GrepArgs } from "./args.js";
import { runFindFiles } from "./find-files-search.js";
import { runGrep } from "./grep-search.js";
import { SharedProgress } from "./progress.js";
import type { SearchScope } from "./project-walk.js";
import { ToolError, type ToolDetails } from "../types.js";

/** The scope without its signal (a cancelled search's thread is ended, not told) and without the details' reader: the details come back with the reply. */
export type ThreadScope = Omit<SearchScope, "signal" | "recordDetails">;

/** A search of lines (grep) or of paths (find_files); `name` is the tool's, for what the model is told. */
export type SearchCall = { name: string } & ({ lines: GrepArgs } | { paths: FindFilesArgs });

export type SearchRequest = SearchCall & { scope: ThreadScope };

export type SearchReply = { ok: true; text: string; details: ToolDetails | null } | { ok: false; toolError: boolean; message: string };

const progress = new SharedProgress(workerData as SharedArrayBuffer);
const signal = new AbortController().signal;

async function answer(request: SearchRequest): Promise<SearchReply> {
  let details: ToolDetails | null = null;
  const scope: SearchScope = { ...request.scope, signal, recordDetails: (told) => (details = told) };
  try {
    const text = "lines" in request ? await runGrep(request.lines, scope, progress) : await runFindFiles(request.paths, scope, progress);
    return { ok: true, text, details };
  } catch (e) {
    return { ok: false, toolError: e instanceof ToolError, message: e instanceof Error ? e.message : String(e) };
  }
}

parentPort?.on("message", (request: SearchRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});
