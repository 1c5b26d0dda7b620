// The instruction of a one-shot run. `hel -` reads it all from stdin; `echo "$log" | hel "why?"` sends
// the prompt with the piped text attached below it in a fenced block, so the model can tell the
// user's words from the data. Only a pipe or a redirected file is read: a program that starts hel
// with a socket for stdin and never closes it must not leave hel waiting. An empty instruction is a
// usage error: nothing is sent.
import { fstatSync } from "node:fs";
import { HelError } from "../errors.js";

export async function oneShotInstruction(words: readonly string[], stdin: NodeJS.ReadStream): Promise<string> {
  if (words.length === 1 && words[0] === "-") {
    const text = await readAll(stdin);
    if (!text.trim()) throw new HelError("stdin was empty, so there is no instruction — pipe one in, or give it as an argument", 2);
    return text.replace(/\n$/, "");
  }
  const prompt = words.join(" ");
  if (!prompt.trim()) throw new HelError("the instruction is empty — give hel something to do, or run it without one for the interactive prompt", 2);
  const piped = isPipeOrFile(stdin) ? await readAll(stdin) : "";
  return withPipedText(prompt, piped);
}

/** The prompt, then the piped text in a fence no line of it can close. */
function withPipedText(prompt: string, piped: string): string {
  const text = piped.replace(/\n$/, "");
  if (!text.trim()) return prompt;
  const longest = Math.max(2, ...[...text.matchAll(/^\s*(`+)/gm)].map((m) => m[1]!.length));
  const fence = "`".repeat(longest + 1);
  return `${prompt}\n\n${fence}\n${text}\n${fence}`;
}

function isPipeOrFile(stdin: NodeJS.ReadStream): boolean {
  if (stdin.isTTY) return false;
  try {
    const info = fstatSync(0);
    return info.isFIFO() || info.isFile();
  } catch {
    return false;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
