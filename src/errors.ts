// Errors meant for a person: `message` is one line saying what went wrong and what to do, and
// `exitCode` is the process status the CLI ends with (1 work failed, 2 usage, 3 in use).
export class HelError extends Error {
  override name = "HelError";
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 3 = 1,
  ) {
    super(message);
  }
}

/** Error messages stay on one line even when they quote a parser or the OS. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

export function hasExitCode(e: unknown): e is Error & { exitCode: number } {
  return e instanceof Error && typeof (e as { exitCode?: unknown }).exitCode === "number";
}
