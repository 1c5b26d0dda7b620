// What the project-rules tests check of one run, whether hel ran in this process or as its own: the
// one request it sent carries nothing of a file outside the project, and its system prompt is the one
// hel builds for the rules it used; a skipped file is one `hel: ` line on stderr.
import { expect } from "vitest";
import type { Simulator } from "../../sim/index.js";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import type { ChatRequest } from "../../src/wire/messages.js";

export const SECRET = "aws_secret_access_key = CANARY-0123456789";
export const NOT_USED = "it is not used as the project's rules — keep them in a regular file inside the project, up to 64 KB";

/** The system prompt of the one request the simulator received, which holds nothing of SECRET. */
export function sentSystem(sim: Simulator): string {
  const bodies = sim.requests.map((r) => r.body as ChatRequest);
  expect(bodies).toHaveLength(1);
  expect(JSON.stringify(bodies)).not.toContain("CANARY");
  return bodies[0]!.messages[0]!.content as string;
}

/** The system prompt hel sends for `project` with these rules, on the date the request carries. */
export function expectedSystem(project: string, sent: string, rules: { file: string; text: string } | null): string {
  const date = /Date: (\d{4}-\d{2}-\d{2})/.exec(sent)![1]!;
  return buildSystemPrompt({ projectDir: project, platform: `${process.platform} ${process.arch}`, date, rules: rules ? [rules] : [] });
}

export const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("hel: "));
