// A named agent: what one agent file (`.hel/agents/<name>.md`, or the user's) says, checked once with
// one schema. Its front matter names what it is for, what of the parent's conversation it sees (its
// mode, which wins over --delegate's), which of the parent's tools it may call, its model, its step
// budget, its access and whether it works in a worktree of its own; its body is its own instructions, which follow hel's role note. An agent
// only ever narrows a child of the session: its access is clamped to the session's here, and its
// steps to --child-max-steps when its child starts. Pure: the files are read at the edge.
import { z } from "../../zod.js";
import { FrontMatterError, parseFrontMatter } from "../../fs/front-matter.js";
import { ACCESS_LEVELS, type Access } from "../../tools/types.js";
import { DELEGATE_MODES, type DelegateMode } from "../events.js";
import { TOOLBOX } from "../toolbox.js";
import { ISOLATIONS, type Isolation } from "./isolation.js";

export interface NamedAgent {
  name: string;
  description: string;
  mode: DelegateMode;
  /** The tools of its parent's it may call; null: all of them. */
  tools: readonly string[] | null;
  model: string | null;
  maxSteps: number | null;
  /** No wider than the session's; null: the session's. */
  access: Access | null;
  /** Whether its child works in a worktree of its own; absent: as the call or `child-isolation` says. */
  isolation?: Isolation;
  /**
   * `off` (absent: on): the child gets the parent's messages without their `[memory]` blocks (memory-block.ts), and
   * its folds offer nothing to keep. Its copy of the parent's messages then differs from the first
   * block on, so the prompt cache serves less of its first request.
   */
  memory?: "off";
  /** The file's body. */
  instructions: string;
}

/** A file's name without `.md`: what delegate_task's `agent` takes. */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const TOOL_NAMES = Object.keys(TOOLBOX) as [string, ...string[]];
const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? `is missing: ${what}` : "must be one line of text") });

// Plain checks only (no transforms): hundreds of files are checked before the first request.
const AgentFileSchema = z.strictObject({
  // Files written for other agents name themselves; the file's name is the agent's.
  name: z.string().optional(),
  description: z.string(required("say what the agent is for, so the parent knows when to pick it")).regex(/\S/, "must say what the agent is for"),
  mode: z.enum(DELEGATE_MODES).optional(),
  tools: z.array(z.enum(TOOL_NAMES, `must name tools hel offers: ${TOOL_NAMES.join(", ")}`), "must be a list of tool names").optional(),
  model: z.string("must be a model name").regex(/\S/, "must be a model name").max(256, "must be a model name of at most 256 characters").optional(),
  "max-steps": z
    .string("must be a whole number")
    .regex(/^\s*\d+\s*$/, "must be a whole number")
    .regex(/[1-9]/, "must be at least 1")
    .optional(),
  access: z.enum(ACCESS_LEVELS, `must be one of ${ACCESS_LEVELS.join(", ")}`).optional(),
  isolation: z.enum(ISOLATIONS, `must be one of ${ISOLATIONS.join(", ")}`).optional(),
  memory: z.enum(["on", "off"], "must be on or off").optional(),
});

/**
 * What a checked agent file was checked against, for the agents kept from one start to the next
 * (fs/file-memo.ts): this module as built, whose bundled file is named by its code, and the tools hel offers.
 */
export const AGENT_FILE_CHECKS = `${import.meta.url} ${TOOL_NAMES.join(",")}`;

/** What is wrong with an agent file, as words a warning can follow its path with. */
export class AgentFileProblem extends Error {
  override name = "AgentFileProblem";
}

/** The agent a file of this name and text describes; throws AgentFileProblem naming the key or line. */
export function parseAgentFile(name: string, text: string): NamedAgent {
  if (!AGENT_NAME.test(name)) throw new AgentFileProblem("its name must be letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)");
  let front;
  try {
    front = parseFrontMatter(text);
  } catch (e) {
    if (e instanceof FrontMatterError) throw new AgentFileProblem(e.message);
    throw e;
  }
  // `tools: read_file, grep` as well as a list.
  const { tools } = front.data;
  const data =
    typeof tools === "string"
      ? {
          ...front.data,
          tools: tools
            .split(",")
            .map((t) => t.trim())
            .filter((t) => t !== ""),
        }
      : front.data;
  const parsed = AgentFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === "unrecognized_keys") throw new AgentFileProblem(`the key ${issue.keys[0]} is unknown (the keys are ${Object.keys(AgentFileSchema.shape).join(", ")})`);
    const key = String(issue.path[0] ?? "the front matter");
    throw new AgentFileProblem(`${key} ${issue.code === "invalid_value" && issue.values.length <= 3 ? `must be one of ${issue.values.join(", ")}` : issue.message}`);
  }
  const checked = parsed.data;
  if (checked.name !== undefined && checked.name !== name) throw new AgentFileProblem(`name says ${JSON.stringify(checked.name)}, but the file names the agent ${JSON.stringify(name)}`);
  const steps = checked["max-steps"];
  return {
    name,
    description: checked.description.trim().replace(/\s+/g, " "),
    mode: checked.mode ?? "task-only",
    tools: checked.tools ?? null,
    model: checked.model?.trim() ?? null,
    maxSteps: steps === undefined ? null : Number(steps),
    access: checked.access ?? null,
    ...(checked.isolation ? { isolation: checked.isolation } : {}),
    ...(checked.memory === "off" ? { memory: "off" as const } : {}),
    instructions: front.body.trim(),
  };
}

/** The agent within the session's access, and the line that says so when its file asked for more. */
export function withinAccess(agent: NamedAgent, session: Access): { agent: NamedAgent; clamped: string | null } {
  if (agent.access === null || ACCESS_LEVELS.indexOf(agent.access) <= ACCESS_LEVELS.indexOf(session)) return { agent, clamped: null };
  return { agent: { ...agent, access: session }, clamped: `asks for access ${agent.access}, wider than this session's ${session} — it runs with ${session}` };
}
