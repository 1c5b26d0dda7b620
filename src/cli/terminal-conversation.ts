// A conversation as the terminal drives it (one-shot, stdin's lines, the interactive prompt): the
// terminal hands in its readers (terminal-readers.ts) and keeps its view, whose spinner it clears before a
// question is asked; the closing lines are the view's (the files the run changed), drawn once
// everything is on screen, then the conversation's (how to resume).
import type { ExitReason } from "../agent/events.js";
import { openConversation, type Conversation } from "../conversation/conversation.js";
import type { Io, Project } from "../conversation/project.js";
import type { AskApproval } from "../tools/command/ask-approval.js";
import { terminalReaders } from "./terminal-readers.js";
import { rowWidth, wrapLine } from "./term/kit/style.js";
import type { Renderer } from "./term/render.js";

export interface TerminalSettings {
  /** The session to continue (an id or a unique prefix); null: --continue's, or a new one. */
  resume: string | null;
  /** Driven by the interactive prompt: the answer streams live, and a baseline is kept for /diff. */
  interactive: boolean;
  /** How the terminal asks the user to let a command out of the sandbox; absent: it cannot, and the answer is no. */
  askApproval?: AskApproval;
}

export interface TerminalConversation {
  readonly conversation: Conversation;
  /** The terminal's view: the interactive prompt clears its spinner, and prints its notes above it. */
  readonly view: Renderer;
  /** The closing lines. */
  end(interrupted: boolean): Promise<void>;
}

/** How a driven conversation ended, for the exit status. */
export interface Ended {
  worst: ExitReason;
  /** Ctrl-C stopped it. */
  interrupted: boolean;
  /** Its latest turn could not be saved: work lost once the process ends. */
  lastSaveFailed: boolean;
}

export async function openOnTerminal(project: Project, settings: TerminalSettings, io: Io): Promise<TerminalConversation> {
  const { resume, interactive, askApproval } = settings;
  // Made with the readers, while the conversation opens.
  const made: { view?: Renderer } = {};
  const conversation = await openConversation(
    project,
    {
      resume,
      interactive,
      readers: async (deps) => {
        const { view, readers } = await terminalReaders(project.options, interactive, io, deps);
        made.view = view;
        return readers;
      },
      flush: () => made.view!.flush(),
      // The question is drawn on a clean line: the spinner goes first.
      ...(askApproval
        ? {
            askApproval: (request, signal) => {
              made.view?.stop();
              return askApproval(request, signal);
            },
          }
        : {}),
    },
    io,
  );
  const view = made.view!;
  // A resumed session's todo list is shown again, and stays in view while the next turn runs.
  if (conversation.session.todo.length > 0) view.showTodo(conversation.session.todo);
  return {
    conversation,
    view,
    async end(interrupted) {
      view.stop();
      await view.flush();
      view.finish();
      // On a terminal, fitted to its rows as the view's lines are.
      await conversation.end(interrupted, io.stderr.isTTY ? (words) => wrapLine(words, rowWidth(io.stderr.columns)) : undefined);
    },
  };
}

/**
 * Opens a conversation on the terminal, lets `drive` run it, draws its closing lines, and closes it
 * however the drive ended (a failure skips the closing lines, not the lease's release).
 */
export async function withConversation<T extends Omit<Ended, "lastSaveFailed">>(project: Project, settings: TerminalSettings, io: Io, drive: (terminal: TerminalConversation) => Promise<T>): Promise<T & Ended> {
  const terminal = await openOnTerminal(project, settings, io);
  try {
    const ended = await drive(terminal);
    await terminal.end(ended.interrupted);
    return { ...ended, lastSaveFailed: terminal.conversation.session.lastSaveFailed };
  } finally {
    await terminal.conversation.close();
  }
}
