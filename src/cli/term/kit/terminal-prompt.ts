// The line editor of the interactive mode: Node's readline, handed the terminal's keys one by one so
// that hel decides first what a key means. A bracketed paste (the terminal marks its start and end
// once asked to) is one block of text, however many lines it has; Alt-Enter, or a trailing backslash,
// ends a line without sending it; arrows walk the history, Tab completes, Shift+Tab switches the mode
// its owner keeps (which a word before the prompt names). While hel works the echo is
// off but the keys are still read: what is typed then is kept, and a line finished then is sent next.
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { createInterface, emitKeypressEvents, type Interface, type Key } from "node:readline";
import { InputBlocks } from "./input-blocks.js";
import { takeTypedAhead } from "./typed-ahead.js";

const PASTE_MODE_ON = "\x1b[?2004h";
const PASTE_MODE_OFF = "\x1b[?2004l";
const PROMPT = "› ";
const MORE = "… ";
/** Entries kept in the history, in memory and on disk. */
export const HISTORY_SIZE = 500;

export interface TerminalPromptOptions {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** Earlier instructions, newest first. */
  history: readonly string[];
  /** The completions of a line being typed (Tab), and the end of the line they replace. */
  complete(line: string): Promise<{ completions: string[]; on: string }>;
  /** A whole instruction, the lines of a multi-line one joined and pasted blocks put back. */
  onLine(text: string): void;
  /** The first character of an instruction was typed or pasted on an empty prompt (not a command's "/"). */
  onTyping(): void;
  /** Ctrl-C: what it does depends on what hel is doing. */
  onInterrupt(): void;
  /** Ctrl-D on an empty line, or the terminal went away. */
  onClose(): void;
  /** Shift+Tab: the owner switches its mode (and names it with setMode). */
  onModeKey?(): void;
}

export interface TerminalPrompt {
  /** Shows the prompt again, with whatever was typed ahead, and echoes keys from now on. */
  show(): void;
  /** Stops echoing keys (hel works and prints); keys are still read and kept. */
  hide(): void;
  /** Asks one question on the prompt line; the next line answers it instead of being an instruction. */
  ask(question: string): Promise<string>;
  /**
   * Asks a question answered by one key, even while hel works: the first of `keys` typed after it is
   * shown answers it (other keys are ignored; what was typed before goes on the line being typed);
   * Ctrl-C, Ctrl-D, or `signal`, answer it with null.
   */
  askKey(question: string, keys: readonly string[], signal: AbortSignal): Promise<string | null>;
  /** Puts text on the line being typed, as if pasted. */
  insert(text: string): void;
  /** Whether the line being typed holds anything (Ctrl-C then clears it). */
  readonly typing: boolean;
  clearLine(): void;
  /** Adds a sent instruction to the history of the arrow keys. */
  remember(text: string): void;
  /** Names a mode before the prompt ("plan › "), or none; `redraw`: the prompt on screen shows it at once. */
  setMode(mode: string | null, redraw?: boolean): void;
  close(): void;
}

export function openTerminalPrompt(options: TerminalPromptOptions): TerminalPrompt {
  const { input, output } = options;
  const blocks = new InputBlocks();
  // readline navigates this array and, with historySize 0, never adds to it: hel adds whole
  // instructions itself, not the pieces of a multi-line one.
  const history = options.history.map((text) => blocks.onLine(text));
  let echo = true;
  /** The prompt of an instruction's first line: the mode's name, if any, then the mark. */
  let main = PROMPT;
  const gate = Object.assign(new EventEmitter(), {
    isTTY: true,
    get columns() {
      return output.columns;
    },
    write(text: string) {
      return echo ? output.write(text) : true;
    },
  });
  const resized = () => gate.emit("resize");
  output.on("resize", resized);
  // readline reads keys from this stand-in; the terminal's keys reach it only through route().
  const keys = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (mode: boolean) => input.setRawMode(mode) });
  const rl: Interface = createInterface({
    input: keys,
    output: gate as unknown as NodeJS.WritableStream,
    terminal: true,
    prompt: main,
    history,
    historySize: 0,
    // Two parameters: readline waits for the callback (completions may need the disk or the API).
    // The keys typed meanwhile wait too, so Tab then Enter sends the completed line.
    completer: (line: string, done: (error: null, result: [string[], string]) => void) => {
      held ??= [];
      const finish = (result: [string[], string]) => {
        done(null, result);
        const next = held ?? [];
        held = null;
        for (const [s, key] of next) route(s, key);
      };
      options.complete(line).then(
        ({ completions, on }) => finish([completions, on]),
        () => finish([[], line]),
      );
    },
  });

  let pasted: string[] | null = null;
  /** Keys that came while a completion was being found, in order. */
  let held: [string | undefined, Key][] | null = null;
  let altEnter = false;
  let pending: string[] = [];
  let question: ((answer: string) => void) | null = null;
  let keyQuestion: ((key: Key, s: string | undefined) => void) | null = null;

  const insert = (text: string) => {
    const clean = text.replace(/\r\n?/g, "\n").replace(/\n$/, "");
    if (clean) rl.write(blocks.onLine(clean));
  };
  const route = (s: string | undefined, key: Key = {}): void => {
    if (keyQuestion) return keyQuestion(key, s);
    if (held) return void held.push([s, key]);
    if (key.name === "paste-start") return void (pasted = []);
    if (key.name === "paste-end") {
      const text = (pasted ?? []).join("");
      pasted = null;
      begins(text);
      return insert(text);
    }
    if (pasted) return void pasted.push(key.sequence ?? s ?? "");
    if (key.name === "tab" && key.shift) return options.onModeKey?.();
    if (key.meta && (key.name === "return" || key.name === "enter")) {
      altEnter = true;
      return rl.write(null, { name: "return" });
    }
    if (!key.ctrl && !key.meta && s !== undefined && s.length === 1 && s >= " ") begins(s);
    keys.emit("keypress", s, key);
  };
  /** Tells the prompt's owner when `text`, about to go on an empty prompt, begins an instruction. */
  const begins = (text: string) => {
    if (!question && rl.line.length === 0 && pending.length === 0 && text.trim() && !text.startsWith("/")) options.onTyping();
  };

  /** Answers the question asked, if there is one. Ctrl-C and Ctrl-D answer it with nothing, which the asker takes as "none". */
  const answerQuestion = (text: string): boolean => {
    const answer = question;
    if (!answer) return false;
    question = null;
    rl.setPrompt(main);
    answer(text);
    return true;
  };
  rl.on("line", (line) => {
    const continued = altEnter || line.endsWith("\\");
    const piece = altEnter ? line : continued ? line.slice(0, -1) : line;
    altEnter = false;
    if (answerQuestion(blocks.expand(line))) return;
    if (continued) {
      pending.push(piece);
      rl.setPrompt(MORE);
      if (echo) rl.prompt();
      return;
    }
    const text = blocks.expand([...pending, piece].join("\n"));
    pending = [];
    rl.setPrompt(main);
    options.onLine(text);
  });
  rl.on("SIGINT", () => {
    if (!answerQuestion("")) options.onInterrupt();
  });
  rl.on("close", () => {
    answerQuestion("");
    options.onClose();
  });
  const ended = () => rl.close();
  emitKeypressEvents(input);
  input.on("keypress", route);
  input.on("end", ended);
  input.resume();
  output.write(PASTE_MODE_ON);

  return {
    show() {
      echo = true;
      // Nothing was drawn while the echo was off: the line starts afresh on the row below.
      Object.assign(rl, { prevRows: 0 });
      rl.prompt(true);
    },
    hide() {
      echo = false;
    },
    ask(text) {
      return new Promise((resolve) => {
        question = resolve;
        rl.setPrompt(text);
        this.show();
      });
    },
    askKey(text, answers, signal) {
      return new Promise((resolve) => {
        const done = (answer: string | null) => {
          keyQuestion = null;
          signal.removeEventListener("abort", aborted);
          output.write(`${answer ?? "(no answer)"}\n`);
          resolve(answer);
        };
        const aborted = () => done(null);
        // Keys typed before the question, not read yet (hel was busy), are typing, not its answer; they
        // are taken before the question shows, so that any key pressed once it shows answers it.
        const ahead = takeTypedAhead(input);
        if (ahead.length > 0) input.emit("data", ahead);
        output.write(text);
        if (signal.aborted) return done(null);
        signal.addEventListener("abort", aborted);
        keyQuestion = (key, s) => {
          if (key.ctrl && (key.name === "c" || key.name === "d")) return done(null);
          const typed = (s ?? key.name ?? "").toLowerCase();
          if (answers.includes(typed)) done(typed);
        };
      });
    },
    insert,
    get typing() {
      return rl.line.length > 0 || pending.length > 0;
    },
    clearLine() {
      pending = [];
      rl.setPrompt(main);
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
    },
    remember(text) {
      const entry = blocks.onLine(text);
      const seen = history.indexOf(entry);
      if (seen !== -1) history.splice(seen, 1);
      history.unshift(entry);
      history.length = Math.min(history.length, HISTORY_SIZE);
    },
    setMode(mode, redraw = false) {
      main = mode === null ? PROMPT : `${mode} ${PROMPT}`;
      // A question or a line being continued keeps its own prompt until it is answered.
      if (question || pending.length > 0) return;
      rl.setPrompt(main);
      if (redraw && echo) rl.prompt(true);
    },
    close() {
      input.off("keypress", route);
      input.off("end", ended);
      output.off("resize", resized);
      rl.close();
      output.write(PASTE_MODE_OFF);
      input.pause();
    },
  };
}
