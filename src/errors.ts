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

// What the system's error codes mean to a person: Node's own messages quote the call that failed
// ("ELOOP: too many symbolic links encountered, scandir '/abs/path'").
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ELOOP: "a loop of symbolic links is in the way",
  EACCES: "permission denied",
  EPERM: "not permitted",
  ENOTDIR: "a file is where a folder should be",
  ENOSPC: "the disk is full",
  EROFS: "the file system is read-only",
};

/** A failed file operation in a person's words, naming the path it was about when it names one. */
export function systemProblem(e: unknown): string {
  const { code, path } = e as NodeJS.ErrnoException;
  const words = code ? SYSTEM_ERRORS[code] : undefined;
  if (!words) return oneLine(e instanceof Error ? e.message : String(e));
  return path ? `${words} (${path})` : words;
}
