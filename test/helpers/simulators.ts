// What the tests that drive whole conversations share: simulators a file starts and each test's end
// closes, a policy whose tool call ids depend only on the conversation (so two runs send the same
// bytes), and the session id hel's closing line names.
import { afterEach } from "vitest";
import { startSimulator, type SimReply, type Simulator } from "../../sim/index.js";
import type { Policy, SimOptions } from "../../sim/types.js";

/** A function that starts a simulator, closed after the test that started it; call once per file. */
export function simulators(): (options?: SimOptions) => Promise<Simulator> {
  let started: Simulator[] = [];
  afterEach(async () => {
    await Promise.all(started.map((s) => s.close()));
    started = [];
  });
  return async (options = {}) => {
    const s = await startSimulator(options);
    started.push(s);
    return s;
  };
}

/** `policy` with tool call ids numbered by the conversation's length. */
export function steadyIds(policy: Policy): Policy {
  return (req, ctx) => {
    const reply = policy(req, ctx) as SimReply;
    return { ...reply, ...(reply.tool_calls ? { tool_calls: reply.tool_calls.map((c, i) => ({ ...c, id: `call_${req.messages.length}_${i}` })) } : {}) };
  };
}

/** The session id of hel's "resume with" line (on a narrow terminal, the command is on the next row). */
export const sessionIdOf = (stderr: string): string | undefined => /resume with:\s+hel --resume (\S+)/.exec(stderr)?.[1];
