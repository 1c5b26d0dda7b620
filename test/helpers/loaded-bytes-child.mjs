// Child process for the loaded-bytes test: loads a session and encodes it as a save does (the
// history's pieces are views of the bytes the load read), drops the loaded snapshot while holding
// the pieces, as a save in flight holds them after compaction replaced the messages, lets the
// collector run, then loads another session, and prints whether the pieces still hold the bytes they
// held. Usage: node --expose-gc loaded-bytes-child.mjs <compiled modules> <project> <id> <other id>
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, project, id, other] = process.argv.slice(2);
const load = async (name) => await import(pathToFileURL(join(modules, name)).href);
const { loadSnapshot } = await load("session/snapshot-file.js");
const { encodeSnapshot } = await load("session/snapshot-format.js");

async function piecesOfLoaded() {
  const { messages, ...header } = await loadSnapshot(project, id);
  return encodeSnapshot(header, messages);
}
const pieces = await piecesOfLoaded();
const before = Buffer.concat(pieces);
for (let i = 0; i < 5; i++) {
  globalThis.gc();
  await new Promise((settled) => setTimeout(settled, 20));
}
await loadSnapshot(project, other);
console.log(JSON.stringify({ pieces: pieces.length, intact: Buffer.concat(pieces).equals(before) }));
