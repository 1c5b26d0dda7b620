// `hel web [--port N]`: serves this project's sessions to a browser on this machine until Ctrl-C (or
// SIGTERM), printing the one URL that opens it, token included. The session pages are the ones
// `hel sessions export` writes (view/), their secrets masked the same way.
import { realpath } from "node:fs/promises";
import { HelError } from "../errors.js";
import { findProjectRoot } from "../conversation/project-root.js";
import { readPageAssets } from "../view/page-assets.js";
import { renderSessionPage } from "../view/page.js";
import { readSessionDocument } from "../view/read-session.js";
import { newToken } from "./web/guard.js";
import { startViewer, type Viewer } from "./web/server.js";
import type { Invocation } from "./options.js";

type WebInvocation = Extract<Invocation, { kind: "web" }>;

export interface WebIo {
  stdout: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

/** Starts the viewer and says where it is; the caller stops it (`close`). */
export async function openViewer(invocation: WebInvocation, io: WebIo): Promise<Viewer> {
  const start = await realpath(invocation.cwd).catch(() => {
    throw new HelError(`the project directory ${invocation.cwd} does not exist — check -C`, 2);
  });
  const { root: projectDir } = await findProjectRoot(start);
  const assets = await readPageAssets();
  const apiKey = io.env.DEEPSEEK_API_KEY;
  const secrets = apiKey ? [apiKey] : [];
  const viewer = await startViewer({
    projectDir,
    port: invocation.port,
    token: newToken(),
    renderSession: async (id) => renderSessionPage(await readSessionDocument(projectDir, id, secrets), assets),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") throw new HelError(`port ${invocation.port} is in use — choose another with --port, or leave it out for a free one`, 1);
    throw error;
  });
  io.stdout.write(`hel web: this project's sessions at ${viewer.url}\n(read-only, on this machine only; Ctrl-C stops it)\n`);
  return viewer;
}

export async function runWebCommand(invocation: WebInvocation, io: WebIo): Promise<number> {
  const viewer = await openViewer(invocation, io);
  // Listeners that stay: with none left, signal-exit (proper-lockfile's, loaded by the session list)
  // would raise the signal again and end the process before the server closes.
  await new Promise<void>((resolve) => {
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
  });
  await viewer.close();
  return 0;
}
