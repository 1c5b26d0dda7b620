// The one event stream of a run, fanned out to its readers: the terminal view, `--json`, `--record`,
// the session (which saves from it) and whatever reader comes next, each a subscriber of its own.
// Contract:
// - Readers get every event, in emit order, synchronously: the loop never waits for a reader.
// - A reader may start asynchronous work (the session's save) by returning a promise; `settle()`
//   waits for all of it, and the run calls it between instructions, so nothing is still being
//   written when the next instruction starts or the process ends.
// - A reader that throws, or whose work fails, is dropped with a report: it must not break the loop
//   halfway through a step and leave a tool call without its result.
import type { AgentEvent, EventSink } from "./events.js";

export type EventReader = (event: AgentEvent) => void | Promise<void>;

export interface EventBus {
  readonly emit: EventSink;
  subscribe(reader: EventReader): void;
  /** Resolves once every piece of work the readers started has finished. */
  settle(): Promise<void>;
}

export function createEventBus(onReaderFailure: (error: unknown) => void): EventBus {
  const readers: EventReader[] = [];
  const pending = new Set<Promise<void>>();
  const drop = (reader: EventReader, error: unknown) => {
    const at = readers.indexOf(reader);
    if (at >= 0) readers.splice(at, 1);
    onReaderFailure(error);
  };
  const emit: EventSink = (event) => {
    for (const reader of [...readers]) {
      let work: void | Promise<void>;
      try {
        work = reader(event);
      } catch (error) {
        drop(reader, error);
        continue;
      }
      if (!work) continue;
      const tracked: Promise<void> = work.catch((error: unknown) => drop(reader, error)).finally(() => pending.delete(tracked));
      pending.add(tracked);
    }
  };
  return {
    emit,
    subscribe: (reader) => void readers.push(reader),
    async settle() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}
