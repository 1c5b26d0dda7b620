// The tool list of a conversation, made from the catalogue (../toolbox.ts): the tools --tools chose,
// in its order, then those --delegate adds, each made once from what the conversation holds (its
// archive, its children, its live messages, the project's changes). Here because the tools that
// start children are made here; the catalogue itself loads none of them. The MCP servers' tools
// (../../mcp/) join the list after all of these, as the catalogue's family of a server's tools.
import type { ProjectChanges } from "../../changes/unified-diff.js";
import { findFilesTool, grepTool } from "../../tools/search/tools.js";
import { readFileTool } from "../../tools/file/read-file.js";
import { escalatingRunCommandTool, runCommandTool } from "../../tools/command/run-command.js";
import { searchReplaceTool } from "../../tools/file/search-replace.js";
import type { Access, ApprovalMode, Tool } from "../../tools/types.js";
import type { Message } from "../../wire/messages.js";
import type { ArchiveIndex } from "../context/archive-index.js";
import { createRecallTool, foldTool } from "../context/context-tools.js";
import type { DelegateMode } from "../events.js";
import { DELEGATE_TOOLS, traitsOf } from "../toolbox.js";
import { createAskTool } from "./ask.js";
import type { Children } from "./children.js";
import { createDelegateTool } from "./delegate-tool.js";
import type { NamedAgent } from "./named-agent.js";
import { createReviewTool } from "./review-tool.js";
import { todoTool } from "../todo.js";

/** What the command line chose. */
export interface ToolChoice {
  tools: readonly string[];
  access: Access;
  delegate: DelegateMode | null;
  /** --approval; absent: never. */
  approval?: ApprovalMode;
}

/** What the tools read from the conversation they serve. */
export interface ToolDeps {
  archive: ArchiveIndex;
  /** The conversation's live messages. */
  parentMessages: () => readonly Message[];
  children: Children;
  /** How many input tokens an archived span may fill when ask cannot see the view it was part of. */
  askBudgetTokens: number;
  /** The project's changes since the session began; null when no baseline was kept. */
  changes: (() => Promise<ProjectChanges>) | null;
  /** The named agents delegate_task may hand a task to (named-agent.ts). */
  agents?: readonly NamedAgent[];
}

type Maker = (deps: ToolDeps, choice: ToolChoice) => Tool | null;

/** One maker per tool of the catalogue; null where the conversation cannot offer it. */
const MAKERS: readonly Maker[] = [
  () => readFileTool as Tool,
  () => searchReplaceTool as Tool,
  // Escalation is offered only where it can be asked for: under edit access, and --approval on-request.
  (_, choice) => (choice.approval === "on-request" && choice.access === "edit" ? escalatingRunCommandTool : runCommandTool) as Tool,
  () => grepTool as Tool,
  () => findFilesTool as Tool,
  () => foldTool as Tool,
  (deps) => createRecallTool(deps.archive) as Tool,
  (deps) => createAskTool({ archive: deps.archive, parentMessages: deps.parentMessages, children: deps.children, budgetTokens: deps.askBudgetTokens }) as Tool,
  () => todoTool as Tool,
  (deps, choice) => (choice.delegate ? (createDelegateTool({ mode: choice.delegate, parentMessages: deps.parentMessages, children: deps.children, ...(deps.agents ? { agents: deps.agents } : {}) }) as Tool) : null),
  (deps) => (deps.changes ? (createReviewTool({ parentMessages: deps.parentMessages, children: deps.children, changes: deps.changes }) as Tool) : null),
];

export function assembleTools(choice: ToolChoice, deps: ToolDeps): Tool[] {
  const made = new Map<string, Tool>();
  for (const make of MAKERS) {
    const tool = make(deps, choice);
    if (tool) made.set(tool.name, tool);
  }
  const delegated = choice.delegate && deps.changes ? DELEGATE_TOOLS : [];
  const tools: Tool[] = [];
  for (const name of [...choice.tools, ...delegated]) {
    const traits = traitsOf(name);
    const tool = made.get(name);
    if (!traits || !tool) throw new Error(`the catalogue has no tool ${JSON.stringify(name)} to make`);
    // A tool that only edits would be refused every call under read-only access: it is not offered.
    if (traits.editsFiles && choice.access === "read-only") continue;
    tools.push(traits.concurrent ? { ...tool, concurrent: true } : tool);
  }
  return tools;
}

/** The list with the MCP servers' tools after hel's own: what the next instruction offers. */
export function withServerTools(own: readonly Tool[], served: readonly Tool[]): Tool[] {
  for (const tool of served) {
    if (traitsOf(tool.name)?.offered !== "by a server") throw new Error(`${JSON.stringify(tool.name)} is not a name the catalogue gives a server's tool`);
  }
  return [...own, ...served];
}
