// Child process for the short-write test: runs under `ulimit -f`, saves a 1 MB snapshot over a small
// one, and prints the outcome as JSON. Usage: node save-child.mjs <compiled modules> <project> <id>
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// Exceeding the file size limit raises SIGXFSZ, which would kill the process before write() can
// return EFBIG; with a listener installed the kernel's short write and EFBIG reach the code.
process.on("SIGXFSZ", () => undefined);
const [modules, project, id] = process.argv.slice(2);
const { saveSnapshot, loadSnapshot } = await import(pathToFileURL(join(modules, "session/snapshot-file.js")).href);
const snapshot = await loadSnapshot(project, id);
snapshot.messages.push({ role: "user", content: "x".repeat(1024 * 1024) }, { role: "assistant", content: "ok" });
try {
  await saveSnapshot(project, snapshot);
  console.log(JSON.stringify({ ok: true }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, message: e.message, exitCode: e.exitCode }));
}
