// The run's event stream fans out to its readers: in order, without waiting for them, dropping one
// that fails, and settling only once the work readers started (a session's save) is done.
import { expect, it } from "vitest";
import { createEventBus } from "../../src/agent/event-bus.js";
import type { AgentEvent } from "../../src/agent/events.js";

const start = (instruction: string): AgentEvent => ({ agent: "parent", type: "turn_start", instruction });

it("every reader gets every event, in emit order", () => {
  const bus = createEventBus(() => expect.unreachable());
  const seen: string[] = [];
  bus.subscribe((e) => void seen.push(`a ${e.type === "turn_start" ? e.instruction : ""}`));
  bus.subscribe((e) => void seen.push(`b ${e.type === "turn_start" ? e.instruction : ""}`));
  bus.emit(start("1"));
  bus.emit(start("2"));
  expect(seen).toEqual(["a 1", "b 1", "a 2", "b 2"]);
});

it("a reader that throws is dropped and reported; the others go on", () => {
  const failures: unknown[] = [];
  const bus = createEventBus((error) => failures.push(error));
  let calls = 0;
  const seen: string[] = [];
  bus.subscribe(() => {
    calls++;
    throw new Error("disk full");
  });
  bus.subscribe((e) => void seen.push(e.type));
  bus.emit(start("1"));
  bus.emit(start("2"));
  expect(calls).toBe(1);
  expect(seen).toEqual(["turn_start", "turn_start"]);
  expect(failures.map((e) => (e as Error).message)).toEqual(["disk full"]);
});

it("settle waits for the work readers started, and a reader whose work fails is dropped", async () => {
  const failures: unknown[] = [];
  const bus = createEventBus((error) => failures.push(error));
  let saved = 0;
  let failing = 0;
  bus.subscribe(async () => {
    await new Promise((r) => setTimeout(r, 20));
    saved++;
  });
  bus.subscribe(async () => {
    failing++;
    throw new Error("could not write");
  });
  bus.emit(start("1"));
  expect(saved).toBe(0);
  await bus.settle();
  expect(saved).toBe(1);
  bus.emit(start("2"));
  await bus.settle();
  expect(saved).toBe(2);
  expect(failing).toBe(1);
  expect(failures.map((e) => (e as Error).message)).toEqual(["could not write"]);
});
