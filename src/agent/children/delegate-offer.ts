// What delegate_task offers when the project has named agents: an `agent` argument beside `task`, and a
// description that lists each agent's name, mode and description. Every request carries the
// definition, so it stays under MAX_DEFINITION_CHARS however many agents there are: the agents past
// what fits are named only by the argument's values; past that (hundreds of agents), the argument
// takes any name and the description names as many as fit. The agents come sorted by name, so the
// definition is the same from run to run while the files are. Without agents the tool is as before.
import { z } from "../../zod.js";
import { toolDefinitions } from "../../tools/registry.js";
import type { NamedAgent } from "./named-agent.js";

/** The whole delegate_task definition, as JSON in the request, stays under this. */
export const MAX_DEFINITION_CHARS = 8000;

const HEADER =
  "Named agents: pass `agent` to hand the task to one of these instead. Each follows its own instructions, may use only some of your tools, and sees what its mode says (full: this whole conversation; no-tools: it without tool calls and results; task-only: nothing of it) instead of the above.";

export interface DelegateOffer {
  description: string;
  /** The `agent` argument; null: no agents, no argument. */
  agent: z.ZodOptional<z.ZodType<string>> | null;
}

/** The largest n in [0, max] for which `fits(n)` holds, `fits` holding for all n below one where it does. */
function largest(max: number, fits: (n: number) => boolean): number {
  let low = -1;
  let high = max + 1;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (fits(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * delegate_task's description and `agent` argument; `size` measures the definition they would make.
 * `base` is the description without agents.
 */
export function delegateOffer(base: string, agents: readonly NamedAgent[], size: (offer: DelegateOffer) => number): DelegateOffer {
  if (agents.length === 0) return { description: base, agent: null };
  const names = agents.map((a) => a.name) as [string, ...string[]];
  const entry = (a: NamedAgent) => `- ${a.name} (${a.mode}): ${a.description}`;
  const fits = (offer: DelegateOffer) => size(offer) < MAX_DEFINITION_CHARS;
  const named = z.enum(names).optional().describe("The named agent to do the task; omit it for a subagent as described above.");
  // The first `n` described, the rest named by the argument's values only.
  const described = (n: number): DelegateOffer => {
    const rest = agents.length - n;
    const tail = rest > 0 ? [`… and ${rest} more, named by the values of agent.`] : [];
    return { description: [base, "", HEADER, ...agents.slice(0, n).map(entry), ...tail].join("\n"), agent: named };
  };
  const n = largest(agents.length, (k) => fits(described(k)));
  if (n >= 0) return described(n);
  const anyName = z.string().optional().describe("The name of a named agent to do the task; omit it for a subagent as described above.");
  const listed = (k: number): DelegateOffer => {
    const rest = agents.length - k;
    const list = `Their names: ${names.slice(0, k).join(", ")}${rest > 0 ? ` … and ${rest} more.` : "."}`;
    return { description: [base, "", HEADER, list].join("\n"), agent: anyName };
  };
  return listed(Math.max(largest(agents.length, (k) => fits(listed(k))), 0));
}

/** The size of delegate_task's definition as a request carries it. */
export function definitionSize(tool: { name: string; description: string; schema: z.ZodType }): number {
  return JSON.stringify(toolDefinitions([{ ...tool, spill: false, run: async () => "" }])[0]).length;
}
