// delegate_task's definition with named agents: each agent listed by name, mode and description while
// the whole definition stays under 8,000 characters, then by name only (the argument's values), then,
// with more names than that holds, as many names as fit and an argument that takes any; without
// agents, the definition of before.
import { describe, expect, it } from "vitest";
import { createDelegateTool } from "../../../src/agent/children/delegate-tool.js";
import { MAX_DEFINITION_CHARS } from "../../../src/agent/children/delegate-offer.js";
import type { Children } from "../../../src/agent/children/children.js";
import type { NamedAgent } from "../../../src/agent/children/named-agent.js";
import { toolDefinitions } from "../../../src/tools/registry.js";
import type { Tool } from "../../../src/tools/types.js";

const children = {
  budget: { maxSteps: 30, maxTokens: null },
  start: () => {
    throw new Error("not started here");
  },
} as Children;
const agents = (n: number, description = "Reviews one module of the code base for the error handling it lacks, and reports each place it found"): NamedAgent[] =>
  Array.from({ length: n }, (_, i) => ({ name: `agent-${String(i).padStart(4, "0")}`, description, mode: "task-only", tools: null, model: null, maxSteps: null, access: null, instructions: "" }));

const definitionOf = (list: NamedAgent[] | undefined) => toolDefinitions([createDelegateTool({ mode: "full", parentMessages: () => [], children, ...(list ? { agents: list } : {}) }) as Tool])[0]!;

describe("delegate_task with named agents", () => {
  it("without agents is the definition it always was", () => {
    expect(JSON.stringify(definitionOf([]))).toBe(JSON.stringify(definitionOf(undefined)));
    expect(Object.keys(definitionOf([]).function.parameters.properties as object)).toEqual(["task", "max_steps"]);
  });

  it("lists every agent while they fit, then describes the first ones and names the rest by the argument's values", () => {
    const few = definitionOf(agents(3)).function;
    expect(few.description.split("\n").slice(-3)).toEqual(agents(3).map((a) => `- ${a.name} (task-only): ${a.description}`));
    const many = definitionOf(agents(200));
    const size = JSON.stringify(many).length;
    expect(size).toBeLessThan(MAX_DEFINITION_CHARS);
    const described = many.function.description.split("\n").filter((l) => l.startsWith("- agent-"));
    expect(described.length).toBeGreaterThan(10);
    expect(described.length).toBeLessThan(200);
    expect(many.function.description.endsWith(`\n… and ${200 - described.length} more, named by the values of agent.`)).toBe(true);
    expect((many.function.parameters.properties as Record<string, { enum?: string[] }>).agent!.enum).toHaveLength(200);
    // One more described agent would not have fitted.
    const next = `\n- ${agents(200)[described.length]!.name} (task-only): ${agents(1)[0]!.description}`;
    expect(size + JSON.stringify(next).length - 2).toBeGreaterThanOrEqual(MAX_DEFINITION_CHARS - 10);
  });

  it("with more names than the bound holds, names as many as fit and takes any name", () => {
    const huge = definitionOf(agents(2000, "x"));
    expect(JSON.stringify(huge).length).toBeLessThan(MAX_DEFINITION_CHARS);
    const agent = (huge.function.parameters.properties as Record<string, { type: string; enum?: string[] }>).agent!;
    expect(agent).toEqual({ type: "string", description: "The name of a named agent to do the task; omit it for a subagent as described above." });
    expect(huge.function.description).toMatch(/\nTheir names: agent-0000, agent-0001, .* … and \d+ more\.$/);
  });

  it("takes a name it does not list, and answers an unknown one with the call to make instead", async () => {
    const tool = createDelegateTool({ mode: "full", parentMessages: () => [], children, agents: agents(3) });
    const args = tool.schema.parse({ task: "look", agent: "agent-9999" });
    await expect(tool.run(args, {} as never)).rejects.toThrow('there is no named agent "agent-9999"; no subagent was started. Call delegate_task again with an agent named in its description, or without agent.');
  });
});
