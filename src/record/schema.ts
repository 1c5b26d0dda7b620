// The files `--record <dir>` writes, defined once: the recorder writes these shapes and
// evals read them back with the same schemas.
import { z } from "../zod.js";
import { ContextEventSchema } from "../agent/context/context-event.js";
import { DELEGATE_MODES } from "../agent/events.js";
import { CHILD_KINDS, EXIT_REASONS } from "../agent/events.js";
import { SpendSchema, UsageTotalsSchema } from "../agent/usage.js";
import { ChatRequestSchema, UsageSchema } from "../wire/messages.js";
import { HOOK_EVENTS } from "../hooks/hook-config.js";

const AgentSchema = z.enum(["parent", "child"]);

/** One agent's share of the spend: the parent, a delegation with its mode, a review with its kind (record.json's and --json's `by_agent`). */
export const AgentSpendSchema = SpendSchema.extend({
  agent: AgentSchema,
  delegation: z.number().int().optional(),
  mode: z.enum(DELEGATE_MODES).nullable().optional(),
  kind: z.enum(CHILD_KINDS).optional(),
  /** The named agent that did a delegation. */
  agent_name: z.string().optional(),
});

export const RecordJsonSchema = z.object({
  session_id: z.string().nullable(),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS).nullable(),
  /** Lines in raw/requests.jsonl: every HTTP request, retries included. */
  requests: z.number().int().nonnegative(),
  /** Over answered requests only; costs are estimates from the price table. */
  usage: z.object({
    total: SpendSchema,
    parent: SpendSchema,
    child: SpendSchema,
    /** The parent, then each child. */
    by_agent: z.array(AgentSpendSchema),
  }),
  /** In the order they finished: a delegate_task call comes after its child's calls. */
  tool_calls: z.array(
    z.object({
      agent: AgentSchema,
      delegation: z.number().int().optional(),
      name: z.string(),
      arguments: z.string(),
      is_error: z.boolean(),
      /**
       * Only for a command run outside the sandbox its access gives, or refused that: by allow rules
       * (`rules`), the user's answer (once, always, no) or an earlier always (remembered).
       */
      approval: z.object({ by: z.enum(["rule", "once", "always", "remembered", "no"]), rules: z.array(z.string()).optional(), justification: z.string().optional() }).optional(),
    }),
  ),
  instructions: z.array(z.object({ instruction: z.string(), answer: z.string().nullable(), exit_reason: z.enum(EXIT_REASONS) })),
  /** Folds and compactions, in order. */
  context: z.array(ContextEventSchema).default([]),
  /** The user's hooks that ran, in order: exit_code null when one was ended or died of a signal. */
  hooks: z
    .array(
      z.object({
        agent: AgentSchema,
        delegation: z.number().int().optional(),
        event: z.enum(HOOK_EVENTS),
        command: z.string(),
        exit_code: z.number().int().nullable(),
        timed_out: z.boolean(),
      }),
    )
    .default([]),
});
export type RecordJson = z.infer<typeof RecordJsonSchema>;

export const RequestLineSchema = z.object({
  agent: AgentSchema,
  delegation: z.number().int().optional(),
  kind: z.enum(CHILD_KINDS).optional(),
  status: z.number().int(),
  usage: UsageSchema.nullable().optional(),
  finish_reason: z.string().nullable().optional(),
  error: z.string().optional(),
  hit_ratio: z.number().nullable(),
  duration_ms: z.number(),
  body: ChatRequestSchema,
});
export type RequestLine = z.infer<typeof RequestLineSchema>;

export const DelegationLineSchema = z.object({
  delegation: z.number().int(),
  kind: z.enum(CHILD_KINDS),
  /** Null for a review. */
  mode: z.enum(DELEGATE_MODES).nullable(),
  /** The named agent that did it; absent for a plain delegation, a review, and in records from before named agents. */
  agent_name: z.string().optional(),
  task: z.string(),
  tool_calls: z.array(z.object({ name: z.string(), arguments: z.string() })),
  answer: z.string().nullable(),
  exit_reason: z.enum(EXIT_REASONS),
  usage: UsageTotalsSchema,
  cost_usd: z.number().nonnegative().nullable(),
});
export type DelegationLine = z.infer<typeof DelegationLineSchema>;
