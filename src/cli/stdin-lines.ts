// The instructions of stdin mode: every non-empty line of the input, in order, until it ends.
// A module of its own so that only this mode loads readline (time and memory at start-up).
import { createInterface } from "node:readline";

export async function* stdinInstructions(input: NodeJS.ReadableStream): AsyncGenerator<string> {
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim()) yield line;
  }
}
