// The terminal's readers of a conversation's event stream, handed in to it (conversation/readers.ts
// subscribes them after its own): the terminal's view (term/render.ts), then, with --json,
// --json-events or --output-format json|stream-json, the JSON that stdout carries in place of the answer.
import type { EventReader } from "../agent/event-bus.js";
import type { Io } from "../conversation/project.js";
import type { ReadersDeps } from "../conversation/readers.js";
import { createJsonOutput } from "./json/json-output.js";
import type { RunOptions } from "./options.js";
import { createRenderer, type Renderer } from "./term/render.js";

export interface TerminalReaders {
  view: Renderer;
  readers: EventReader[];
}

/** `interactive`: the answer streams live. */
export async function terminalReaders(
  options: Pick<RunOptions, "json" | "jsonEvents" | "outputFormat" | "showReasoning" | "cwd" | "access">,
  interactive: boolean,
  io: Io,
  { ledger, sessionId }: ReadersDeps,
): Promise<TerminalReaders> {
  const structured = options.json || options.jsonEvents || options.outputFormat !== "text";
  const view = createRenderer({ stdout: io.stdout, stderr: io.stderr, live: interactive && !structured, printAnswer: !structured, showReasoning: options.showReasoning, env: io.env, usage: ledger });
  const write = (line: string) => io.stdout.write(line);
  const readers: EventReader[] = [view.observe];
  if (options.json) readers.push(createJsonOutput(write, sessionId, ledger));
  if (options.jsonEvents) {
    // Loaded only here: the other runs need not load its schemas.
    const { createJsonEvents } = await import("./json/json-events.js");
    readers.push(createJsonEvents(write, sessionId, ledger));
  }
  if (options.outputFormat !== "text") {
    // Loaded only here, as --json-events' is.
    const { createStreamJson } = await import("./json/stream-json.js");
    readers.push(createStreamJson(write, { format: options.outputFormat, cwd: options.cwd, access: options.access, sessionId, ledger }));
  }
  return { view, readers };
}
