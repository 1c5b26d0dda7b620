// hel in a pseudo-terminal, as a person runs it: `script` gives it a terminal for stdin, stdout and
// stderr, the test types into it (keys as the terminal sends them) and reads the screen's bytes.
import { spawn } from "node:child_process";
import { HEL, helEnv } from "./hel.js";
import { screenOf } from "./screen.js";
import { waitFor } from "./wait.js";

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

export interface TerminalRun {
  type(keys: string): void;
  /** What the terminal shows now, redrawn lines resolved. */
  screen(): string;
  /** Every byte the terminal was sent so far, as UTF-8. */
  bytes(): string;
  until(check: (screen: string) => boolean, what: string): Promise<void>;
  exited: Promise<number | null>;
}

/** `columns`: the terminal's width (otherwise the pseudo-terminal has none, and hel takes 80). */
export function inTerminal(args: string[], baseUrl: string, env: Record<string, string | undefined> = {}, columns?: number): TerminalRun {
  const run = [process.execPath, HEL, ...args].map(quote).join(" ");
  const command = columns === undefined ? run : `stty cols ${columns} rows 50 && exec ${run}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], { env: helEnv(baseUrl, env), stdio: ["pipe", "pipe", "pipe"] });
  let bytes = "";
  child.stdout.on("data", (d: Buffer) => (bytes += d.toString()));
  const screen = () => screenOf(bytes);
  return {
    type: (keys) => child.stdin.write(keys),
    screen,
    bytes: () => bytes,
    until: (check, what) =>
      waitFor(
        () => check(screen()),
        () => `${what}; screen so far:\n${screen()}`,
      ),
    exited: new Promise((resolve) => child.on("close", (code) => resolve(code))),
  };
}

/** How many times `text` occurs in `screen`. */
export const count = (screen: string, text: string): number => screen.split(text).length - 1;
