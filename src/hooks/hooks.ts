// The user's hooks at the fixed points of a conversation: which of them run (the event, and the
// matcher against its tool name, a compaction's trigger or a session's source), one after another in
// the config's order, with what JSON, and what their exits mean to the caller: exit 0 goes on (its
// stdout is context where the event has context), exit 2 blocks (its stderr is the reason, and the
// hooks after it are not run), anything else, a timeout included, is a warning. Every run is reported.
// With no hook for an event nothing is started. What each event's JSON holds is hook-payloads.ts's.
import { matches, type HookEvent, type HooksConfig } from "./hook-config.js";
import type { HookAgent, HookFields, HookOpening, HookPayload } from "./hook-payloads.js";
import { runHook, type HookPlace } from "./run-hook.js";
import { redactSecrets } from "../redact.js";

export interface HookReport {
  event: HookEvent;
  /** Masked, as what it prints. */
  command: string;
  agent: HookAgent | null;
  exitCode: number | null;
  timedOut: boolean;
  /** Cleaned, bounded and masked, as everything a hook prints. */
  stderr: string;
}

export interface HookDeps extends HookPlace {
  hooks: HooksConfig;
  sessionId: () => string;
  report: (report: HookReport) => void;
}

/** What the hooks of one event said: the context of those that went on, or the reason one blocked. */
interface Said {
  context: string;
  blocked: string | null;
}

export interface Hooks {
  /** What the SessionStart hooks printed, to add to the model's context ("" for nothing). */
  sessionStart(source: HookPayload<"SessionStart">["source"], signal: AbortSignal): Promise<string>;
  /** blocked: the instruction is not sent. */
  userPromptSubmit(prompt: string, signal: AbortSignal): Promise<Said>;
  /** The reason a hook blocked the call, or null to run it. */
  preToolUse(name: string, input: unknown, signal: AbortSignal): Promise<string | null>;
  /** What a hook that exited 2 said of the call that ran and succeeded, for the model; null for nothing. */
  postToolUse(name: string, input: unknown, response: string, signal: AbortSignal): Promise<string | null>;
  preCompact(trigger: HookPayload<"PreCompact">["trigger"], focus: string, signal: AbortSignal): Promise<void>;
  /** The reason to go on instead of stopping, or null to stop (always, for a child). `active`: the turn already went on for one. */
  stop(active: boolean, signal: AbortSignal): Promise<string | null>;
  /** The same hooks, run for a child and naming it. */
  forChild(agent: HookAgent): Hooks;
}

/** The conversation's hooks; null when the config names none, so nothing of theirs is ever done. */
export function openHooks(deps: HookDeps): Hooks | null {
  return Object.values(deps.hooks).some((hooks) => hooks.length > 0) ? createHooks(deps, null) : null;
}

function createHooks(deps: HookDeps, agent: HookAgent | null): Hooks {
  const fire = async <E extends HookEvent>(event: E, subject: string | null, fields: HookFields<E>, signal: AbortSignal): Promise<Said> => {
    const chosen = (deps.hooks[event] ?? []).filter((hook) => subject === null || matches(hook, subject));
    const context: string[] = [];
    for (const hook of chosen) {
      if (signal.aborted) break;
      const opening: HookOpening = { session_id: deps.sessionId(), cwd: deps.projectDir, hook_event_name: event, ...(agent ? { agent } : {}) };
      const run = await runHook(hook, { ...opening, ...fields }, deps, signal);
      // The command is shown and recorded: a key written into it is masked there too.
      deps.report({ event, command: redactSecrets(hook.command, deps.secrets), agent, exitCode: run.exitCode, timedOut: run.timedOut, stderr: run.stderr });
      if (run.exitCode === 2) return { context: context.join("\n"), blocked: run.stderr || "(the hook gave no reason)" };
      if (run.exitCode === 0 && run.stdout !== "") context.push(run.stdout);
    }
    return { context: context.join("\n"), blocked: null };
  };
  return {
    sessionStart: async (source, signal) => (await fire("SessionStart", source, { source }, signal)).context,
    userPromptSubmit: (prompt, signal) => fire("UserPromptSubmit", null, { prompt }, signal),
    preToolUse: async (name, input, signal) => (await fire("PreToolUse", name, { tool_name: name, tool_input: input }, signal)).blocked,
    postToolUse: async (name, input, response, signal) => (await fire("PostToolUse", name, { tool_name: name, tool_input: input, tool_response: response }, signal)).blocked,
    preCompact: async (trigger, focus, signal) => void (await fire("PreCompact", trigger, { trigger, custom_instructions: focus }, signal)),
    // A child's end is its parent's to judge: Stop hooks are the parent's.
    stop: async (active, signal) => (agent ? null : (await fire("Stop", null, { stop_hook_active: active }, signal)).blocked),
    forChild: (child) => createHooks(deps, child),
  };
}
