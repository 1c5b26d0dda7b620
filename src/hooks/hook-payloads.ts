// The JSON object a hook reads on its stdin, one strict schema per event: the contract the user's hook
// scripts are written against (Claude Code's field names), pinned in test/contracts/hooks.txt, so a
// field is added, never removed or renamed. Every payload opens with the session, the project and the
// event, then `agent` when a child's hook runs, then the event's own fields; hooks.ts builds them from
// these types, so a payload that leaves the schema does not compile. Keys are in the order written.
import { z } from "../zod.js";
import type { HookEvent } from "./hook-config.js";

/** The child an agent's hooks run for. A kind, not an enum: hooks/ is beneath the agents that have kinds. */
const HookAgentSchema = z.strictObject({
  number: z.number().int(),
  kind: z.string(),
  /** The named agent (.hel/agents/<name>.md) the child is, if it is one. */
  name: z.string().optional(),
});
export type HookAgent = z.infer<typeof HookAgentSchema>;

/** What every event's payload opens with. `cwd` is the project, wherever the hook itself runs (run-hook.ts). */
const opening = <E extends HookEvent>(event: E) => ({
  session_id: z.string(),
  cwd: z.string(),
  hook_event_name: z.literal(event),
});
/** A child runs the events of its own turns with its parent's hooks, and is named. */
const ofAgent = { agent: HookAgentSchema.optional() };
const toolCall = { tool_name: z.string(), /** The call's arguments: the object, or the text when it is not JSON. */ tool_input: z.unknown() };

export const HOOK_PAYLOAD_SCHEMAS = {
  // A session's start and the user's instructions are the conversation's, never a child's: no `agent`.
  SessionStart: z.strictObject({ ...opening("SessionStart"), source: z.enum(["startup", "resume"]) }),
  UserPromptSubmit: z.strictObject({ ...opening("UserPromptSubmit"), prompt: z.string() }),
  PreToolUse: z.strictObject({ ...opening("PreToolUse"), ...ofAgent, ...toolCall }),
  /** `tool_response`: the result the model gets, of a call that succeeded (a failed one runs no hook). */
  PostToolUse: z.strictObject({ ...opening("PostToolUse"), ...ofAgent, ...toolCall, tool_response: z.string() }),
  /** `custom_instructions`: the focus the user gave /compact ("" for none, and for an automatic one). */
  PreCompact: z.strictObject({ ...opening("PreCompact"), ...ofAgent, trigger: z.enum(["manual", "auto"]), custom_instructions: z.string() }),
  /** A child's end is its parent's to judge: no child runs Stop, so it names none. */
  Stop: z.strictObject({ ...opening("Stop"), stop_hook_active: z.boolean() }),
} satisfies { [E in HookEvent]: z.ZodType<{ hook_event_name: E }> };

export type HookPayload<E extends HookEvent> = z.infer<(typeof HOOK_PAYLOAD_SCHEMAS)[E]>;
/** The fields an event adds to the opening (and to `agent`): what its caller hands over. */
export type HookFields<E extends HookEvent> = Omit<HookPayload<E>, "session_id" | "cwd" | "hook_event_name" | "agent">;
/** What every payload opens with, whatever its event, `agent` included: what hooks.ts writes before the event's fields. */
export type HookOpening = z.infer<z.ZodObject<ReturnType<typeof opening<HookEvent>> & typeof ofAgent>>;
