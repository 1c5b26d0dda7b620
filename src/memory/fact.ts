// A fact kept across sessions (design §19): one short line of what a session established or the user
// wants, in one of two scopes: `project` (this project's `.hel/memory/`) or `user` (the user's own hel
// folder, every project). The one zod definition every fact file is written and read with, and the
// rule a fact's text must pass before it is kept: short, and holding none of this run's secrets.
import { holdsSecret } from "../redact.js";
import { z } from "../zod.js";

/** A fact is sent with every instruction it is recalled for: it stays one short paragraph. */
export const FACT_MAX_CHARS = 400;

export const FACT_SCOPES = ["project", "user"] as const;
export type FactScope = (typeof FACT_SCOPES)[number];

const FactIdSchema = z.string().regex(/^[0-9a-f]{8}$/, "a fact id is 8 hex digits");

export const FactSchema = z.object({
  id: FactIdSchema,
  scope: z.enum(FACT_SCOPES),
  text: z.string().min(1).max(FACT_MAX_CHARS),
  /** Who wrote it: `user`, or `fold <session-id> <handle>` for a fold note's part. */
  source: z.string(),
  /** ISO times. */
  created: z.string(),
  updated: z.string(),
  /** 1 when written, one more at each edit. */
  revision: z.number().int().positive(),
  /**
   * A project fact's MAC under the user's key (fs/state-dir.ts), over the project's path and the
   * fact: a fact a clone or a command wrote into `.hel/memory/` has none that matches, and is not
   * recalled until the user keeps it.
   */
  mac: z.string().optional(),
});
export type Fact = z.infer<typeof FactSchema>;

/** Why `text` may not be kept as a fact, in words for the user; null when it may. */
export function factTextProblem(text: string, secrets: readonly string[]): string | null {
  if (text.trim() === "") return "the fact is empty";
  if (text.length > FACT_MAX_CHARS) return `the fact is ${text.length} characters, more than ${FACT_MAX_CHARS}: say it shorter`;
  if (holdsSecret(JSON.stringify(text), secrets)) return "the fact holds a secret (an API key or a credential in your environment): write it without the secret";
  return null;
}

/** What the MAC of a project fact covers: where it belongs, and every field but the MAC. */
export function macData(projectDir: string, fact: Fact): string {
  return JSON.stringify([projectDir, fact.id, fact.scope, fact.text, fact.source, fact.created, fact.updated, fact.revision]);
}
