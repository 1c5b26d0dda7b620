// The run_command tests' two pieces: a model step that calls run_command, and the last tool result the
// simulator was sent.
import type { Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";

export const runCommand = (args: object) => ({ tool_calls: [{ name: "run_command", arguments: JSON.stringify(args) }] });

export function lastToolResult(sim: Simulator): string {
  const messages = (sim.requests.at(-1)!.body as ChatRequest).messages;
  return messages.findLast((m) => m.role === "tool")!.content as string;
}
