// Where a run writes its output and the terminal view draws: process.stdout and process.stderr, or a test's stand-in.
export interface Output {
  write(text: string): void;
  isTTY?: boolean;
  /** Width of the terminal, when it is one. */
  columns?: number;
}
