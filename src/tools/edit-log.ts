// The edits the agents of one process make to files, kept while a command runs, so that when it ends
// hel can look again at each edit another agent made meanwhile: a formatter or `sed -i` that read the
// file before the edit and wrote it back after erased it without any error. How an edit is looked at
// and applied again is given when the log is made (file/lost-edits.ts). Each agent also gets its
// notices of its own edits that were lost, with its next tool result, or its parent does once it has
// finished. One log is shared by a parent and its children; each agent holds its own view of it.

export interface LoggedEdit {
  /** Counts up through the process: later edits have larger numbers. */
  seq: number;
  /** Who made it: "the parent agent" or "subagent N". */
  agent: string;
  /** The file's real path (the file lock's key) and the path as the model gave it. */
  real: string;
  display: string;
  /** As search_replace applied them, with "\n" line endings; an empty oldText created the file. */
  oldText: string;
  newText: string;
}

/**
 * Looks at one edit in the file as a command of `by` left it: applies it again, or tells its agent
 * (`by.tell`) it was lost. Resolves to the line the command's result gets about it, or null when the
 * edit is intact.
 */
export type KeepEdit = (edit: LoggedEdit, by: EditLog) => Promise<string | null>;

/** A notice about `about`'s work, worded when it is handed over, since by then someone else may take it. */
interface Notice {
  about: string;
  text: (whose: string) => string;
}

interface Shared {
  keep: KeepEdit;
  seq: number;
  edits: LoggedEdit[];
  /** The first seq each running command may need. */
  running: Set<number>;
  inbox: Map<string, Notice[]>;
  /** Agents that finished, with whom their notices go to instead. */
  finished: Map<string, string>;
}

export class EditLog {
  private constructor(
    private readonly shared: Shared,
    readonly agent: string,
    private readonly parent: string | null,
  ) {}

  /** The log of a new run, as its parent agent holds it. */
  static forParent(keep: KeepEdit): EditLog {
    return new EditLog({ keep, seq: 0, edits: [], running: new Set(), inbox: new Map(), finished: new Map() }, "the parent agent", null);
  }

  /** The view of the log a child started by this agent holds. */
  child(number: number): EditLog {
    return new EditLog(this.shared, `subagent ${number}`, this.agent);
  }

  record(edit: Omit<LoggedEdit, "seq" | "agent">): void {
    // Nobody needs an edit made while no command runs: a command started later reads the file after it.
    if (this.shared.running.size === 0) return;
    this.shared.edits.push({ ...edit, seq: ++this.shared.seq, agent: this.agent });
  }

  /**
   * Runs a command of this agent (`run` resolves to its result), then keeps the edits other agents
   * made while it ran; the result ends with a line for each that was applied again or lost.
   */
  async aroundCommand(run: () => Promise<string>): Promise<string> {
    const { shared } = this;
    const from = shared.seq + 1;
    shared.running.add(from);
    try {
      const result = await run();
      const all = shared.edits.filter((e) => e.seq >= from);
      const lines: string[] = [];
      for (const [i, edit] of all.entries()) {
        if (edit.agent === this.agent || supersededBy(edit, all.slice(i + 1))) continue;
        const line = await shared.keep(edit, this);
        if (line) lines.push(line);
      }
      return lines.length > 0 ? `${result}\n${lines.join("\n")}` : result;
    } finally {
      shared.running.delete(from);
      const oldest = Math.min(...shared.running);
      shared.edits = shared.edits.filter((e) => e.seq >= oldest);
    }
  }

  /**
   * A notice about `agent`'s work for `agent`, or for whoever it reported to once it has finished;
   * `text` is given how to name whose work it was: "your", or "subagent N's".
   */
  tell(agent: string, text: (whose: string) => string): void {
    this.deliver(agent, { about: agent, text });
  }

  /** This agent's notices, once each. */
  take(): string[] {
    return this.taken().map((n) => n.text(n.about === this.agent ? "your" : `${n.about}'s`));
  }

  /** This agent answered: its notices, those waiting and those to come, go to its parent. */
  finish(): void {
    if (this.parent === null) return;
    this.shared.finished.set(this.agent, this.parent);
    for (const notice of this.taken()) this.deliver(this.parent, notice);
  }

  private deliver(agent: string, notice: Notice): void {
    let to = agent;
    for (let next = this.shared.finished.get(to); next !== undefined; next = this.shared.finished.get(to)) to = next;
    const inbox = this.shared.inbox.get(to) ?? [];
    inbox.push(notice);
    this.shared.inbox.set(to, inbox);
  }

  private taken(): Notice[] {
    const notices = this.shared.inbox.get(this.agent) ?? [];
    this.shared.inbox.delete(this.agent);
    return notices;
  }
}

/** A later edit of the same file that changed this one's new text: its new text is gone for that reason. */
function supersededBy(edit: LoggedEdit, later: readonly LoggedEdit[]): boolean {
  return later.some((l) => l.real === edit.real && l.oldText !== "" && (l.oldText.includes(edit.newText) || edit.newText.includes(l.oldText)));
}
