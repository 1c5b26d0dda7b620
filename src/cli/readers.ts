// The readers of a conversation's event stream, subscribed in one place. The one rule of their order:
// the usage ledger reads each event first, because the readers after it (the session's save, the
// terminal's figures, --json, --json-events, --record) ask it about the event they are reading.
// Nothing else depends on the order: the loop keeps the archive itself, and the session saves from
// the turn's end.
import type { EventBus } from "../agent/event-bus.js";
import type { Hints } from "../agent/context/hints.js";
import type { UsageLedger } from "../agent/usage-ledger.js";
import { Recorder } from "../record/recorder.js";
import type { ActiveSession } from "../session/session.js";
import { createJsonOutput } from "./json/json-output.js";
import type { RunOptions } from "./options.js";
import type { Output } from "./term/kit/output.js";
import type { Renderer } from "./term/render.js";

export interface ConversationReaders {
  ledger: UsageLedger;
  session: ActiveSession;
  hints: Hints;
  renderer: Renderer;
  options: Pick<RunOptions, "json" | "jsonEvents" | "record">;
  stdout: Output;
}

export async function subscribeReaders(bus: EventBus, readers: ConversationReaders): Promise<void> {
  const { ledger, session, hints, renderer, options, stdout } = readers;
  const write = (line: string) => stdout.write(line);
  bus.subscribe(ledger.observe);
  bus.subscribe((event) => session.observe(event));
  bus.subscribe((event) => (event.type === "turn_start" && event.agent === "parent" ? hints.newTurn() : undefined));
  bus.subscribe(renderer.observe);
  if (options.json) bus.subscribe(createJsonOutput(write, () => session.id, ledger));
  if (options.jsonEvents) {
    // Loaded only here: the other runs need not load its schemas.
    const { createJsonEvents } = await import("./json/json-events.js");
    bus.subscribe(createJsonEvents(write, () => session.id, ledger));
  }
  if (options.record) {
    const recorder = new Recorder(options.record, ledger);
    recorder.setSessionId(session.id);
    bus.subscribe(recorder.observe);
  }
}
