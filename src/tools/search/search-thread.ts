// Where grep and find_files run: in a worker thread, because a JavaScript regular expression (a grep
// pattern, or the one a glob compiles to) that backtracks without end cannot be interrupted on the
// thread running it. The thread waiting here ends the search's thread when the call is cancelled
// (Ctrl-C) or when the search stops moving on (progress.ts): no file done for STALL_MS is a match that
// runs away, reported to the model as an error naming the pattern or glob and the file. One idle thread
// is kept for the next call, and never keeps hel running.
import { Worker } from "node:worker_threads";
import { SharedProgress, type SearchMark } from "./progress.js";
import type { SearchCall, SearchReply, SearchRequest } from "./search-worker.js";
import { ToolError, type ToolContext } from "../types.js";

const STALL_MS = 5000;
const CHECK_MS = 100;

interface SearchThread {
  worker: Worker;
  progress: SharedProgress;
}

let spare: SearchThread | undefined;

/** The worker's script beside this module: the bundle's chunk, the compiled module, or (for the TypeScript sources a test runner loads) the compiled copy the build keeps in out/. */
function workerScript(): URL {
  const here = import.meta.url;
  if (here.endsWith(".cjs")) return new URL("./search-worker.cjs", here);
  if (here.endsWith(".ts")) return new URL(here.replace(/\/src\/tools\/search\/[^/]+$/, "/out/src/tools/search/search-worker.js"));
  return new URL("./search-worker.js", here);
}

function takeThread(): SearchThread {
  const thread = spare ?? start();
  spare = undefined;
  thread.worker.ref();
  return thread;
}

function start(): SearchThread {
  const progress = new SharedProgress();
  return { worker: new Worker(workerScript(), { workerData: progress.memory }), progress };
}

function release(thread: SearchThread): void {
  thread.worker.unref();
  if (spare === undefined) spare = thread;
  else void thread.worker.terminate();
}

export function runSearch(call: SearchCall, ctx: ToolContext): Promise<string> {
  ctx.signal.throwIfAborted();
  const thread = takeThread();
  const { worker, progress } = thread;
  return new Promise<string>((resolve, reject) => {
    const first = progress.read().count;
    let last = first;
    let since = Date.now();
    const watch = setInterval(() => {
      const mark = progress.read();
      if (mark.count !== last) {
        last = mark.count;
        since = Date.now();
      } else if (mark.count !== first && Date.now() - since >= STALL_MS) {
        end(() => reject(new ToolError(stalled(call, mark))), true);
      }
    }, CHECK_MS);
    const onAbort = (): void => end(() => reject(ctx.signal.reason), true);
    const onMessage = (reply: SearchReply): void =>
      end(() => {
        if (!reply.ok) return reject(reply.toolError ? new ToolError(reply.message) : new Error(reply.message));
        if (reply.details) ctx.report.recordDetails(reply.details);
        resolve(reply.text);
      }, false);
    const onError = (e: Error): void => end(() => reject(e), true);
    const onExit = (code: number): void => end(() => reject(new Error(`the search thread ended early (exit code ${code})`)), true);
    function end(settle: () => void, stop: boolean): void {
      clearInterval(watch);
      ctx.signal.removeEventListener("abort", onAbort);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      if (stop) void worker.terminate();
      else release(thread);
      settle();
    }
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    const request: SearchRequest = { ...call, scope: { projectDir: ctx.projectDir, sessionDir: ctx.session.dir, secrets: ctx.policy.secrets } };
    worker.postMessage(request);
  });
}

function stalled(call: SearchCall, mark: SearchMark): string {
  const seconds = STALL_MS / 1000;
  if (mark.what === "glob") {
    const glob = "lines" in call ? call.lines.glob : call.paths.pattern;
    return (
      `the glob ${JSON.stringify(glob)} was stopped after matching the one path ${mark.rel} for ${seconds} s: with many ** segments a glob takes exponential time to match. ` +
      `Use one ** (e.g. "**/a/*.ts" rather than "**/a/**/a/**/*.ts") and call ${call.name} again`
    );
  }
  const pattern = "lines" in call && call.lines.pattern !== undefined ? `/${call.lines.pattern}/` : "the pattern";
  return (
    `grep was stopped: ${pattern} ran for ${seconds} s on one part of ${mark.rel} without finishing, so it backtracks catastrophically ` +
    "(a repeated group inside a repetition, such as (a+)+, or alternatives that overlap under a repetition). Rewrite it without nested repetition and call grep again"
  );
}
