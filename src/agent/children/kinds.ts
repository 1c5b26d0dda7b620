// Every kind of child as one row of a table: what readers call it, the access it runs with, whether
// it folds and compacts on the session's archive, and which of the parent's tools it refuses (with
// the words the model gets instead). child-run.ts and child-tools.ts read the row; a new kind of
// child (a named agent read from a file) is one more row.
import type { Access, Tool } from "../../tools/types.js";
import type { ChildKind, DelegateMode } from "../events.js";
import { traitsOf } from "../toolbox.js";

export interface ChildKindRow {
  /** What the terminal, the cost table and transcripts call a child of this kind; absent: the kind's name. */
  label?(mode: DelegateMode | null): string;
  /** The access its tools run with, whatever the parent's; absent: the parent's. */
  access?: Access;
  /** It folds and compacts on the session's archive, as the parent does. */
  keepsArchive: boolean;
  /** The refusal a tool of the parent's answers every call with in this child, or null to offer it. */
  refuses(tool: Tool): string | null;
}

const NO_ARCHIVE = "you are answering a question about the archive: answer from what you see, with your other tools.";
const NO_EDITS = "you are the reviewer: you may read files but never edit them. Report the change that is needed as a finding in your JSON answer instead.";

export const CHILD_KIND_ROWS: Readonly<Record<ChildKind, ChildKindRow>> = {
  delegate: { label: (mode) => mode ?? "delegate", keepsArchive: true, refuses: () => null },
  // A reviewer reads; whatever else it is offered (a command) runs with read-only access too.
  review: { access: "read-only", keepsArchive: true, refuses: (tool) => (traitsOf(tool.name)?.editsFiles ? NO_EDITS : null) },
  // A question about the archive is answered and gone: it neither folds nor compacts, nor asks on.
  ask: { keepsArchive: false, refuses: (tool) => {
      const traits = traitsOf(tool.name);
      return traits?.startsChild === "question" || traits?.folds ? NO_ARCHIVE : null;
    },
  },
};

/** A child's name for people: its delegation mode, or its kind. */
export function childLabel(child: { kind: ChildKind; mode: DelegateMode | null }): string {
  return CHILD_KIND_ROWS[child.kind].label?.(child.mode) ?? child.kind;
}
