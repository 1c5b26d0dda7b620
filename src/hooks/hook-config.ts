// The `hooks` key of a config file: for each event, the user's commands to run at it, each with the
// tool names it is for (a regular expression matched against the whole name; absent, "" or "*": every
// one) and how long it may run. A matcher that is not a regular expression is a config error.
import { z } from "../zod.js";

export const HOOK_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Past this a hook is ended: as long as the longest command may run. */
const MAX_TIMEOUT_S = 600;

const regexProblem = (pattern: string): string | null => {
  try {
    new RegExp(pattern);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
};

const HookSchema = z.strictObject({
  matcher: z
    .string("must be a regular expression over tool names")
    .check((ctx) => {
      const problem = regexProblem(ctx.value === "*" ? "" : ctx.value);
      if (problem) ctx.issues.push({ code: "custom", input: ctx.value, message: `must be a regular expression over tool names (${problem})` });
    })
    .optional(),
  command: z.string("must be a shell command").min(1, "must be a shell command"),
  timeout_s: z.number("must be a number of seconds").positive("must be more than 0").max(MAX_TIMEOUT_S, `must be at most ${MAX_TIMEOUT_S}`).optional(),
});
/** `inProject`: a trusted project's hook, which runs in the project; the user's own run in hel's own folder (tools/program-place.ts). No file can say it: the schema is strict. */
export type Hook = z.infer<typeof HookSchema> & { inProject?: true };

export const HooksSchema = z.strictObject(Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.array(HookSchema).optional()])) as Record<HookEvent, z.ZodOptional<z.ZodArray<typeof HookSchema>>>);
export type HooksConfig = { [E in HookEvent]?: Hook[] };

/** Whether a hook is for this name (a tool's, or a compaction's trigger, a session's source). */
export function matches(hook: Hook, name: string): boolean {
  const pattern = hook.matcher;
  if (pattern === undefined || pattern === "" || pattern === "*") return true;
  return new RegExp(`^(?:${pattern})$`).test(name);
}

/** The user's hooks, then the (trusted) project's, marked as the project's, event by event: both run. */
export function mergeHooks(user: HooksConfig | undefined, project: HooksConfig | undefined): HooksConfig | undefined {
  if (!user && !project) return undefined;
  const merged: HooksConfig = {};
  for (const event of HOOK_EVENTS) {
    const both = [...(user?.[event] ?? []), ...(project?.[event] ?? []).map((hook): Hook => ({ ...hook, inProject: true }))];
    if (both.length > 0) merged[event] = both;
  }
  return merged;
}
