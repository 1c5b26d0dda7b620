// What delegate_task offers when the project has named agents: an `agent` argument beside `task`, and a
// description that lists each agent's name, mode and description. Every request carries the
// definition, so it stays under MAX_DEFINITION_CHARS however many agents there are: the agents past
// what fits are named only by the argument's values; past that (hundreds of agents), the argument
// takes any name and the description names as many as fit. The agents come sorted by name, so the
// definition is the same from run to run while the files are. Without agents the tool is as before.
import type { z } from "../../zod.js";
import { toolDefinitions } from "../../tools/registry.js";
import type { NamedAgent } from "./named-agent.js";

/** The whole delegate_task definition, as JSON in the request, stays under this. */
export const MAX_DEFINITION_CHARS = 8000;

const HEADER =
  "Named agents: pass `agent` to hand the task to one of these instead. Each follows its own instructions, may use only some of your tools, and sees what its mode says (full: this whole conversation; no-tools: it without tool calls and results; task-only: nothing of it) instead of the above.";

export interface DelegateOffer {
  description: string;
  /**
   * The `agent` argument (null: no agents, no argument): its description, and the names it takes,
   * listed as its values in the definition (null: any name, there being more than the bound holds).
   */
  agent: { description: string; names: readonly string[] | null } | null;
}

/** How much longer a JSON string grows when `text` is appended to it. */
const escaped = (text: string): number => JSON.stringify(text).length - 2;

/**
 * The most items, in order, whose lengths (`lengths`) fit in `room` beside the tail that says how
 * many are left out (`tail(left out)`); -1 when not even the tail alone fits.
 */
function fitting(lengths: readonly number[], room: number, tail: (rest: number) => number): number {
  if (tail(lengths.length) >= room) return -1;
  let used = 0;
  let n = 0;
  while (n < lengths.length && used + lengths[n]! + tail(lengths.length - n - 1) < room) used += lengths[n++]!;
  return n;
}

/**
 * delegate_task's description and `agent` argument; `size` measures the definition they would make
 * (asked twice at most: the rest is counted, since a description's JSON grows by what is appended).
 * `base` is the description without agents.
 */
export function delegateOffer(base: string, agents: readonly NamedAgent[], size: (offer: DelegateOffer) => number): DelegateOffer {
  if (agents.length === 0) return { description: base, agent: null };
  const names = agents.map((a) => a.name) as [string, ...string[]];
  const head = [base, "", HEADER].join("\n");
  const named = { description: "The named agent to do the task; omit it for a subagent as described above.", names };
  // The first ones described, the rest named by the argument's values only.
  const entries = agents.map((a) => `\n- ${a.name} (${a.mode}): ${a.description}`);
  const moreNamed = (rest: number) => (rest > 0 ? `\n… and ${rest} more, named by the values of agent.` : "");
  const described = fitting(entries.map(escaped), MAX_DEFINITION_CHARS - size({ description: head, agent: named }), (rest) => escaped(moreNamed(rest)));
  if (described >= 0) return { description: head + entries.slice(0, described).join("") + moreNamed(agents.length - described), agent: named };
  // More names than the argument's values can hold: as many as fit, in the description.
  const anyName = { description: "The name of a named agent to do the task; omit it for a subagent as described above.", names: null };
  const listHead = `${head}\nTheir names: `;
  const more = (rest: number) => (rest > 0 ? ` … and ${rest} more.` : ".");
  const listed = names.map((name, i) => (i === 0 ? name : `, ${name}`));
  const shown = Math.max(
    fitting(listed.map(escaped), MAX_DEFINITION_CHARS - size({ description: listHead, agent: anyName }), (rest) => escaped(more(rest))),
    0,
  );
  return { description: listHead + listed.slice(0, shown).join("") + more(agents.length - shown), agent: anyName };
}

/** The size of delegate_task's definition as a request carries it. */
export function definitionSize(tool: { name: string; description: string; schema: z.ZodType; parameters?: Record<string, unknown> }): number {
  return JSON.stringify(toolDefinitions([{ ...tool, spill: false, run: async () => "" }])[0]).length;
}
