// Every kind of child as one row of a table: what readers call it, the access it runs with, whether
// it folds and compacts on the session's archive, and which of the parent's tools it refuses (with
// the words the model gets instead). children.ts and child-tools.ts read the row; a new kind of
// child is one more row. A named agent's row is the delegate's, narrowed by its file (namedAgentRow).
import type { Access, Tool } from "../../tools/types.js";
import type { ChildKind, DelegateMode } from "../events.js";
import { traitsOf } from "../toolbox.js";
import type { NamedAgent } from "./named-agent.js";

export interface ChildKindRow {
  /** What the terminal, the cost table and transcripts call a child of this kind; absent: the kind's name. */
  label?(mode: DelegateMode | null, agentName?: string): string;
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
  delegate: { label: (mode, agentName) => (agentName ? `${agentName}, ${mode}` : (mode ?? "delegate")), keepsArchive: true, refuses: () => null },
  // A reviewer reads; whatever else it is offered (a command) runs with read-only access too.
  review: { access: "read-only", keepsArchive: true, refuses: (tool) => (traitsOf(tool.name)?.editsFiles ? NO_EDITS : null) },
  // A question about the archive is answered and gone: it neither folds nor compacts, nor asks on.
  ask: {
    keepsArchive: false,
    refuses: (tool) => {
      const traits = traitsOf(tool.name);
      return traits?.startsChild === "question" || traits?.folds ? NO_ARCHIVE : null;
    },
  },
};

/**
 * A named agent's row: a delegation's, where a tool its file does not list answers with a refusal,
 * and its tools run with the access its file gives (already no wider than the session's).
 */
export function namedAgentRow(agent: NamedAgent): ChildKindRow {
  const delegate = CHILD_KIND_ROWS.delegate;
  const allowed = agent.tools === null ? null : new Set(agent.tools);
  const listed = agent.tools?.length ? `its tools are ${agent.tools.join(", ")}` : "it has no tools";
  return {
    ...delegate,
    ...(agent.access ? { access: agent.access } : {}),
    refuses: (tool) => (allowed && !allowed.has(tool.name) ? `the agent ${agent.name} may not use ${tool.name}: ${listed}. Do the task with those, or answer with what you found.` : delegate.refuses(tool)),
  };
}

/** The row a child runs by: its kind's, or its named agent's. */
export function rowOf(child: { kind: ChildKind; agent?: NamedAgent }): ChildKindRow {
  return child.agent ? namedAgentRow(child.agent) : CHILD_KIND_ROWS[child.kind];
}

/** A child's name for people: its delegation mode (after its agent's name), or its kind. */
export function childLabel(child: { kind: ChildKind; mode: DelegateMode | null; agentName?: string }): string {
  return CHILD_KIND_ROWS[child.kind].label?.(child.mode, child.agentName) ?? child.kind;
}
