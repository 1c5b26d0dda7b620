// The user's hooks in a conversation: opened for its session, each run reported on the event stream as
// the agent it ran for. What the SessionStart and UserPromptSubmit hooks print rides in the next
// instruction's own message, ahead of its text: the system prompt and every earlier message stay as
// the prompt cache holds them.
import type { EventSink } from "../agent/events.js";
import { emptyTotals } from "../agent/usage.js";
import type { TurnOutcome } from "../agent/loop/loop.js";
import type { HookEvent } from "../hooks/hook-config.js";
import { openHooks, type Hooks } from "../hooks/hooks.js";
import type { ActiveSession } from "../session/session.js";
import type { Project } from "./project.js";

/** Null when the config names no hook, so nothing of theirs is ever done. */
export function conversationHooks(project: Project, env: NodeJS.ProcessEnv, session: ActiveSession, emit: EventSink): Hooks | null {
  if (!project.hooks) return null;
  return openHooks({
    hooks: project.hooks,
    projectDir: project.dir,
    env,
    secrets: project.secrets,
    sessionId: () => session.id,
    report: ({ agent, ...ran }) => emit({ ...(agent ? { agent: "child", delegation: agent.number } : { agent: "parent" }), type: "hook", ...ran }),
  });
}

/** What the SessionStart hooks printed, as it opens the next instruction's message. */
export async function sessionStartContext(hooks: Hooks, resumed: boolean): Promise<string> {
  return hookContext("SessionStart", await hooks.sessionStart(resumed ? "resume" : "startup", new AbortController().signal));
}

/**
 * What the UserPromptSubmit hooks printed, as it opens the instruction's message; or, when the
 * instruction is not sent (aborted while they ran, or blocked: a blocking hook's line has said why),
 * the outcome of the turn that is not run. `settle`: the hooks' reports are read before either.
 */
export async function promptContext(hooks: Hooks, instruction: string, signal: AbortSignal, settle: () => Promise<void>): Promise<string | TurnOutcome> {
  const said = await hooks.userPromptSubmit(instruction, signal);
  await settle();
  if (signal.aborted) return { answer: null, exitReason: "aborted", usage: emptyTotals(), meter: null };
  if (said.blocked !== null) return { answer: null, exitReason: "error", error: `a UserPromptSubmit hook blocked the instruction: ${said.blocked}`, usage: emptyTotals(), meter: null };
  return hookContext("UserPromptSubmit", said.context);
}

/** A hook's printed context as it opens the next instruction's message; nothing for nothing printed. */
function hookContext(event: HookEvent, said: string): string {
  return said === "" ? "" : `[${event} hook]\n${said}\n\n`;
}
