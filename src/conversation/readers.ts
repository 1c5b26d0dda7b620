// The readers of a conversation's event stream, subscribed in one place. The one rule of their order:
// the usage ledger reads each event first, because the readers after it (the session's save, the
// front end's views, --record) ask it about the event they are reading. The front end's readers
// (the terminal's views and its stdout's JSON, or an editor's updates) are handed in and come after
// the conversation's own, --record last. Nothing else depends on the order: the loop keeps the
// archive itself, and the session saves from the turn's end.
import type { Hints } from "../agent/context/hints.js";
import type { EventBus, EventReader } from "../agent/event-bus.js";
import type { UsageLedger } from "../agent/usage-ledger.js";
import { Recorder } from "../record/recorder.js";
import type { ActiveSession } from "../session/session.js";

/** What a front end's readers may ask of the conversation: its ledger, and the session's id (made when first asked). */
export interface ReadersDeps {
  ledger: UsageLedger;
  sessionId(): string;
}

/** A front end's readers, made once the conversation has its ledger and session. */
export type FrontEndReaders = (deps: ReadersDeps) => Promise<readonly EventReader[]>;

export interface ConversationReaders {
  ledger: UsageLedger;
  session: ActiveSession;
  hints: Hints;
  /** --record's file; null: none. */
  record: string | null;
}

export async function subscribeReaders(bus: EventBus, own: ConversationReaders, frontEnd: FrontEndReaders): Promise<void> {
  const { ledger, session, hints, record } = own;
  bus.subscribe(ledger.observe);
  bus.subscribe((event) => session.observe(event));
  bus.subscribe((event) => (event.type === "turn_start" && event.agent === "parent" ? hints.newTurn() : undefined));
  for (const reader of await frontEnd({ ledger, sessionId: () => session.id })) bus.subscribe(reader);
  if (record) {
    const recorder = new Recorder(record, ledger);
    recorder.setSessionId(session.id);
    bus.subscribe(recorder.observe);
  }
}
