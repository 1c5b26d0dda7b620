// A session made on the simulator for the views of a saved session (export, the viewer): seven
// requests, among them a fold of the first read, an edit, and a subagent that reads a file; an
// instruction holding the API key (the export masks it), and a last answer in Markdown that tries
// raw HTML, an image and a javascript: link (the page shows them as text).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Simulator } from "../../sim/index.js";
import type { SimReply } from "../../sim/types.js";
import { runHelInProcess } from "./conversation.js";
import { KEY } from "./sim.js";
import { sessionIdOf } from "./simulators.js";
import { tempProject } from "./temp-project.js";

export const CHILD_TASK = "Read notes.md and say what it asks for.";
export const HOSTILE = [
  "# Done",
  "",
  "Changed `a.txt` so that it says **hello world**; the subagent read the notes.",
  "",
  "<script>window.__pwned = 1</script>",
  '<img src="https://example.invalid/x.png" onerror="window.__pwned = 2">',
  "",
  "![tracker](https://example.invalid/t.gif) and [a link](javascript:window.__pwned=3) and [the docs](https://example.invalid/docs)",
].join("\n");

const SCRIPT: SimReply[] = [
  { content: "Let me read it.", tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "a.txt" }) }] },
  { tool_calls: [{ name: "fold", arguments: JSON.stringify({ since: "#2", note: { changed: "nothing", learned: "a.txt says hello there", decided: "change it to hello world", open: "nothing" } }) }] },
  { tool_calls: [{ name: "search_replace", arguments: JSON.stringify({ path: "a.txt", old_text: "hello there", new_text: "hello world" }) }] },
  { tool_calls: [{ name: "delegate_task", arguments: JSON.stringify({ task: CHILD_TASK }) }] },
  { tool_calls: [{ name: "read_file", arguments: JSON.stringify({ path: "notes.md" }) }] },
  { content: "notes.md asks to **ship it** on Friday." },
  { content: HOSTILE },
];

export interface MadeSession {
  dir: string;
  id: string;
}

/** Runs the script against `sim` (started with `script: exportScript()`), and returns the saved session. */
export async function makeExportedSession(sim: Simulator): Promise<MadeSession> {
  const dir = await tempProject();
  await writeFile(join(dir, "a.txt"), "line one\nhello there\nline three\n");
  await writeFile(join(dir, "notes.md"), "# Notes\n\nShip it on Friday.\n");
  const run = await runHelInProcess({
    args: ["-C", dir, "--delegate", "task-only", "--tools", "read_file,search_replace,fold,recall", `change a.txt to say hello world (the key ${KEY} is for tests)`],
    baseUrl: sim.url,
    env: { DEEPSEEK_API_KEY: KEY },
  });
  if (run.code !== 0) throw new Error(`the run failed: ${run.stderr}`);
  const id = sessionIdOf(run.stderr);
  if (!id) throw new Error(`no session id in: ${run.stderr}`);
  return { dir, id };
}

export const exportScript = (): SimReply[] => SCRIPT.map((step) => ({ ...step }));
