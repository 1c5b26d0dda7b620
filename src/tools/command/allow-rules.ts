// Config `allow` rules: command prefixes (`"git fetch"`) whose commands get the network without asking
// (still in the sandbox). A rule matches whole words of a simple command line only: the line is read
// the way bash would split it, and anything whose meaning bash decides while it runs (substitutions,
// `eval`, a shell given a script with -c, a subshell, a here-document, a variable before the command)
// makes the whole line match nothing. Every command of a chain or pipeline must match a rule.
// What follows the rule's words must not make the program run something else than what the rule
// names: a word that is an option whose value is a program, code or a configuration to read
// (`--upload-pack`, `--receive-pack`, `--exec`, `-c`, `--config-env`, `--script-shell`, …: CODE_OPTIONS
// for every program, in every spelling git and npm take: `--name=value`, `--name value` and any
// abbreviation of the name; SHORT_CODE_OPTIONS by program, alone or in a cluster such as `-qu`), or a
// git address through a transport program (`ext::…`, `fd::…`, any `name::…`), makes the line match
// nothing. The list names what git, npm and its kin, curl, wget, ssh, rsync, tar and find run; an
// option it misses of another program runs code that still has the sandbox around it. Pure: the
// files its redirections write are returned for the caller to check (they must be inside the project).

interface SimpleCommand {
  /** Its words unquoted; `literal` is false for a word with a variable in it. */
  words: { text: string; literal: boolean }[];
  /** Where its redirections write, as written (unquoted). */
  writes: string[];
}

/** Not a line a rule can be checked against. */
class Unmatchable extends Error {}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** Long options whose value is something to run or a configuration that may name one, for any program. */
const CODE_OPTIONS = [
  "upload-pack",
  "receive-pack",
  "exec",
  "exec-path",
  "execute",
  "config",
  "config-env",
  "open-files-in-pager",
  "output",
  "extcmd",
  "tool",
  "template",
  "git-dir",
  "work-tree",
  "separate-git-dir",
  "script-shell",
  "node-options",
  "userconfig",
  "globalconfig",
  "shell",
  "editor",
  "pager",
  "call",
  "init-module",
  "eval",
  "require",
  "import",
  "loader",
  "rcfile",
  "init-file",
  "rsh",
  "rsh-command",
  "to-command",
  "use-compress-program",
  "checkpoint-action",
  "info-script",
  "new-volume-script",
  "proxy-command",
];
/** Short options of the same kind, by program. */
const SHORT_CODE_OPTIONS: Readonly<Record<string, string>> = { git: "cuxO", npm: "c", npx: "c", pnpm: "c", curl: "K", wget: "e", ssh: "oF", scp: "oFS", rsync: "e", tar: "IF" };
/** Options spelt with one dash that run a program, by program. */
const SINGLE_DASH: Readonly<Record<string, readonly string[]>> = { find: ["-exec", "-execdir", "-ok", "-okdir"] };
/** A git address through a transport program: `ext::sh -c …`, `fd::3`. */
const TRANSPORT = /^[A-Za-z][A-Za-z0-9+.-]*::/;
/** Places a redirection may always write: they are not files. */
const STREAMS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

export interface AllowMatch {
  /** The rules the line's commands matched, in order, each once. */
  rules: string[];
  /** The files its redirections write, as written (relative to the command's directory, or absolute). */
  writes: string[];
}

/** What `command` matches, or null when some part of it matches no rule or the line cannot be read safely. */
export function allowMatch(command: string, rules: readonly string[]): AllowMatch | null {
  const wanted = rules.map((rule) => ({ rule, words: rule.trim().split(/\s+/).filter(Boolean) })).filter((r) => r.words.length > 0);
  if (wanted.length === 0) return null;
  let commands: SimpleCommand[];
  try {
    commands = simpleCommands(command);
  } catch (e) {
    if (e instanceof Unmatchable) return null;
    throw e;
  }
  if (commands.length === 0) return null;
  const matched: string[] = [];
  const files: string[] = [];
  for (const { words, writes } of commands) {
    if (hidesACommand(words.map((w) => w.text))) return null;
    files.push(...writes.filter((target) => !STREAMS.has(target) && !/^\/dev\/fd\/\d+$/.test(target)));
    const rule = wanted.find((r) => r.words.length <= words.length && r.words.every((w, i) => words[i]!.literal && words[i]!.text === w));
    if (
      rule === undefined ||
      runsCode(
        words[0]!.text,
        words.slice(rule.words.length).map((w) => w.text),
      )
    )
      return null;
    if (!matched.includes(rule.rule)) matched.push(rule.rule);
  }
  return { rules: matched, writes: files };
}

/** Whether one of `args`, given to `program` after the rule's words, makes it run something the rule does not name. */
function runsCode(program: string, args: readonly string[]): boolean {
  const name = program.slice(program.lastIndexOf("/") + 1);
  const short = SHORT_CODE_OPTIONS[name] ?? "";
  return args.some((arg) => {
    if (TRANSPORT.test(arg)) return true;
    if (arg.startsWith("--")) {
      const option = arg.slice(2).split("=")[0]!.toLowerCase();
      return option !== "" && CODE_OPTIONS.some((o) => o.startsWith(option));
    }
    return arg.length > 1 && arg.startsWith("-") && ((SINGLE_DASH[name] ?? []).includes(arg) || [...arg.slice(1)].some((c) => short.includes(c)));
  });
}

/** `eval …`, or a shell handed a script on its command line (`sh -c`, `bash -lc`): what runs is not what the rule names. */
function hidesACommand(given: readonly string[]): boolean {
  // Split again at blanks: `env -S "sh -c id"` runs the shell a quoted word names.
  const words = given.flatMap((word) => word.split(/\s+/));
  if (words.includes("eval")) return true;
  const shell = words.findIndex((w) => SHELLS.has(w.slice(w.lastIndexOf("/") + 1)));
  return shell !== -1 && words.slice(shell + 1).some((w) => /^-[A-Za-z]*c/.test(w) || w === "--command");
}

/** The simple commands of a line, split at `;`, `&`, `|`, `&&`, `||` and newlines. Throws Unmatchable. */
function simpleCommands(line: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], writes: [] };
  // Typed wide: the closures below change it, which narrowing cannot see.
  let word = null as { text: string; literal: boolean } | null;
  /** The redirection whose target the next word is: "write", "read", or null. */
  let redirect: "write" | "read" | null = null;

  const endWord = () => {
    if (word === null) return;
    if (redirect !== null) {
      if (!word.literal) throw new Unmatchable();
      // A home directory or a pattern is expanded by bash: where it writes is not what is written.
      if (redirect === "write" && /^~|[*?[]/.test(word.text)) throw new Unmatchable();
      if (redirect === "write") current.writes.push(word.text);
      redirect = null;
    } else {
      if (current.words.length === 0 && ASSIGNMENT.test(word.text)) throw new Unmatchable();
      current.words.push(word);
    }
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (redirect !== null) throw new Unmatchable();
    if (current.words.length > 0) commands.push(current);
    else if (current.writes.length > 0) throw new Unmatchable();
    current = { words: [], writes: [] };
  };
  const add = (text: string, literal = true) => {
    word ??= { text: "", literal: true };
    word.text += text;
    word.literal &&= literal;
  };
  /** `$` at i: a plain variable makes the word non-literal; anything bash would run or compute is refused. */
  const dollar = (i: number): number => {
    const name = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9?#@*$!-])/.exec(line.slice(i));
    if (name === null) {
      // `$(`, `${`, `$((`, `$[`, `$'…'`, `$"…"`: substitutions and their kin.
      if (i + 1 < line.length && !/[\s;&|<>)]/.test(line[i + 1]!)) throw new Unmatchable();
      add("$");
      return i + 1;
    }
    add(name[0], false);
    return i + name[0].length;
  };

  for (let i = 0; i < line.length; ) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "\n" || c === ";" || c === "|" || c === "&") {
      if (c === "&" && line[i + 1] === ">") {
        // &> and &>>: both streams to a file.
        endWord();
        redirect = "write";
        i += line[i + 2] === ">" ? 3 : 2;
        continue;
      }
      endCommand();
      i += (c === "&" || c === "|" || c === ";") && (line[i + 1] === c || (c === "|" && line[i + 1] === "&")) ? 2 : 1;
    } else if (c === "<" || c === ">") {
      // A number right before it names the descriptor, not a word.
      if (word?.literal && /^\d+$/.test(word.text) && !/\s/.test(line[i - 1] ?? " ")) word = null;
      else endWord();
      if (redirect !== null) throw new Unmatchable();
      const op = /^(?:<<<|<<|<>|<&|<\(|<|>>|>\||>&|>\(|>)/.exec(line.slice(i))![0];
      if (op === "<<" || op === "<(" || op === ">(") throw new Unmatchable();
      i += op.length;
      if (op === ">&" || op === "<&") {
        // A descriptor copied (2>&1) or closed (>&-) writes no file; `>&file` is `&>file`.
        const fd = /^(?:\d+|-)(?=$|[\s;&|<>])/.exec(line.slice(i));
        if (fd !== null) {
          i += fd[0].length;
          continue;
        }
        if (op === "<&") throw new Unmatchable();
      }
      redirect = op === "<" || op === "<<<" ? "read" : "write";
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Unmatchable();
      add(line.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      add("");
      i++;
      for (;;) {
        if (i >= line.length) throw new Unmatchable();
        const d = line[i]!;
        if (d === '"') break;
        if (d === "`") throw new Unmatchable();
        if (d === "$") {
          i = dollar(i);
          continue;
        }
        if (d === "\\" && i + 1 < line.length && '$`"\\\n'.includes(line[i + 1]!)) {
          if (line[i + 1] !== "\n") add(line[i + 1]!);
          i += 2;
          continue;
        }
        add(d);
        i++;
      }
      i++;
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new Unmatchable();
      if (line[i + 1] !== "\n") add(line[i + 1]!);
      i += 2;
    } else if (c === "$") {
      i = dollar(i);
    } else if (c === "`" || c === "(" || c === ")") {
      throw new Unmatchable();
    } else if (c === "#" && word === null) {
      while (i < line.length && line[i] !== "\n") i++;
    } else {
      add(c);
      i++;
    }
  }
  endCommand();
  return commands;
}
