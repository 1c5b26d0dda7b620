// The edits the agents of one process make to files, kept while a command runs, so that when it ends
// hel can tell which of them the command may have undone (lost-edits.ts); and each agent's notices of
// its own edits that were lost, handed to it with its next tool result, or to its parent once it has
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

export interface CommandWindow {
  /** Every edit logged since the command started, by any agent, oldest first. */
  edits(): readonly LoggedEdit[];
  /** The command is done with the log: edits no running command needs are forgotten. */
  close(): void;
}

/** A notice about `about`'s work, worded when it is handed over, since by then someone else may take it. */
interface Notice {
  about: string;
  text: (whose: string) => string;
}

interface Shared {
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
  static forParent(): EditLog {
    return new EditLog({ seq: 0, edits: [], running: new Set(), inbox: new Map(), finished: new Map() }, "the parent agent", null);
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

  /** Starts watching for edits of files while a command runs. */
  commandStarted(): CommandWindow {
    const { shared } = this;
    const from = shared.seq + 1;
    shared.running.add(from);
    return {
      edits: () => shared.edits.filter((e) => e.seq >= from),
      close: () => {
        shared.running.delete(from);
        const oldest = Math.min(...shared.running);
        shared.edits = shared.edits.filter((e) => e.seq >= oldest);
      },
    };
  }

  /**
   * A notice about `agent`'s work for `agent`, or for whoever it reported to once it has finished;
   * `notice` is given how to name whose work it was: "your", or "subagent N's".
   */
  tell(agent: string, text: (whose: string) => string): void {
    this.deliver(agent, { about: agent, text });
  }

  private deliver(agent: string, notice: Notice): void {
    let to = agent;
    for (let next = this.shared.finished.get(to); next !== undefined; next = this.shared.finished.get(to)) to = next;
    const inbox = this.shared.inbox.get(to) ?? [];
    inbox.push(notice);
    this.shared.inbox.set(to, inbox);
  }

  /** This agent's notices, once each. */
  take(): string[] {
    return this.taken().map((n) => n.text(n.about === this.agent ? "your" : `${n.about}'s`));
  }

  private taken(): Notice[] {
    const notices = this.shared.inbox.get(this.agent) ?? [];
    this.shared.inbox.delete(this.agent);
    return notices;
  }

  /** This agent answered: its notices, those waiting and those to come, go to its parent. */
  finish(): void {
    if (this.parent === null) return;
    this.shared.finished.set(this.agent, this.parent);
    for (const notice of this.taken()) this.deliver(this.parent, notice);
  }
}
