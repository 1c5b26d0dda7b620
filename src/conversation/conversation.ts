// One conversation, assembled once for every front end from named services: the project (its settings
// and the user's own files), the price table and the usage ledger, the model client, the session, and
// the parts each module here makes: children, the approvals of commands, the tool list and the MCP
// servers' tools, the spend limit, the hooks, the parent's tool context, and the one run setting
// (AgentSetup) every request of the parent is built from; each child derives its own from it when a
// tool call starts one. The front end hands in its readers of the event stream (readers.ts) and, when
// it can ask the user, its question; it drives the conversation: instruct, compact, the controls of
// the interactive prompt, and its end and close.
import { createHints } from "../agent/context/hints.js";
import { createEventBus } from "../agent/event-bus.js";
import { beginTurn, runTurn, type AgentSetup, type TurnOutcome } from "../agent/loop/loop.js";
import { forProvider } from "../agent/request.js";
import { createUsageLedger } from "../agent/usage-ledger.js";
import { startBaseline } from "../changes/baseline.js";
import { redactSecrets } from "../redact.js";
import type { ActiveSession } from "../session/session.js";
import type { AskApproval } from "../tools/command/ask-approval.js";
import { closingLines, type FitRows } from "./closing-lines.js";
import { commandApprovals, warnWithoutSandbox } from "./command-approvals.js";
import { askedCompactAt, compactOnAsk } from "./compact.js";
import { conversationControls, type ConversationControls } from "./controls.js";
import { conversationMemory, type Fact, type MemoryStore } from "./memory.js";
import { conversationHooks, promptContext, sessionStartContext } from "./session-hooks.js";
import { modelLister, openModelClient } from "./model-client.js";
import { loadPriceTable } from "./price-table.js";
import type { Io, Project } from "./project.js";
import { subscribeReaders, type FrontEndReaders } from "./readers.js";
import { resumedNote } from "./resumed.js";
import { sessionChanges } from "./session-changes.js";
import { sessionChildren } from "./session-children.js";
import { sessionFor } from "./session-start.js";
import { sessionSpendLimit } from "./session-spend.js";
import { parentToolContext, sessionJobs } from "./tool-context.js";
import { parentTools, serverToolsOffer, type ParentTools } from "./tool-list.js";

export interface ConversationSettings {
  /** The session to continue (an id or a unique prefix); null: --continue's, or a new one. */
  resume: string | null;
  /** Driven by the interactive prompt: a baseline is kept for /diff, and escalation is asked by default. */
  interactive: boolean;
  /** The front end's readers of the event stream: its views, and what it writes of the events. */
  readers: FrontEndReaders;
  /** Resolves once the front end shows everything its readers read so far: an instruction ends only then. */
  flush?(): Promise<void>;
  /** How this front end asks the user to let a command out of the sandbox; absent: it cannot, and the answer is no. */
  askApproval?: AskApproval;
}

/**
 * An instruction's outcome; `blocked`: a UserPromptSubmit hook kept it from being sent, and its line
 * has said why. `candidates`: what the turn's folds offered to keep (memory `ask`), pending until the user says.
 */
export type Instructed = TurnOutcome & { blocked?: true; candidates?: Fact[] };

export interface Conversation {
  readonly session: ActiveSession;
  /** Runs one instruction to its end; resolves once the session has saved it. */
  instruct(text: string, signal: AbortSignal): Promise<Instructed>;
  /** The user has begun typing an instruction: the model client readies a connection for it. */
  warm(): void;
  /** Compacts now, keeping `focus` in mind; the conversation's size in tokens when it is too small to gain, else null. */
  compact(focus: string): Promise<number | null>;
  readonly controls: ConversationControls;
  /** The facts kept across sessions (design §19); null: memory is off. */
  readonly memory: MemoryStore | null;
  /** The closing lines (closing-lines.ts), after the front end's own; `toRows`: how a terminal fits them to its rows. */
  end(interrupted: boolean, toRows?: FitRows): Promise<void>;
  /** Releases the session's lease and the model client's connections, after ending its background jobs. */
  close(): Promise<void>;
}

export async function openConversation(project: Project, settings: ConversationSettings, io: Io): Promise<Conversation> {
  const { dir, options, apiKey, warn } = project;
  // Every reader of usage (the front end's, --record, the session) asks this one ledger.
  const prices = await loadPriceTable(io.env);
  const ledger = createUsageLedger({ table: prices, now: () => new Date() });
  // What the project looked like at the start, for review_changes and /diff.
  const baseline = options.delegate || settings.interactive ? startBaseline(dir) : null;
  const bus = createEventBus((error) => io.stderr.write(`hel: ${error instanceof Error ? error.message : String(error)} — that output stops here; the run goes on\n`));
  const client = openModelClient(options.baseUrl, apiKey, io.env, settings.interactive ? "commands" : "flags", project.connections, options.provider);
  warnWithoutSandbox(project);
  let session: ActiveSession | undefined;
  let servers: ParentTools["servers"] = null;
  try {
    // Loaded only with --json-schema; a schema that cannot be used stops the run before a session starts.
    const answerSchema = options.jsonSchema ? await (await import("./answer-schema.js")).loadAnswerSchema(options.jsonSchema, io.cwd) : null;
    session = await sessionFor(project, settings.resume, ledger);
    const active = session;
    // Told to the model with the next instruction.
    let gapNote = await resumedNote(active, warn);
    const compactAt = active.requestConfig.compaction.threshold_tokens ?? 0;
    const asked = askedCompactAt(compactAt, options.model);
    const hints = createHints(active.archive);
    const children = sessionChildren(options, active, ledger, bus.emit, dir);
    const approvals = commandApprovals(project, settings.interactive, settings.askApproval);
    const changes = baseline ? () => sessionChanges(active, baseline) : null;
    const deps = { archive: active.archive, parentMessages: () => active.messages, children, askBudgetTokens: asked, changes, agents: project.agents };
    const parent = parentTools(project, io.env, approvals.mode, deps, active);
    servers = parent.servers;
    const spendLimit = sessionSpendLimit(options.maxCost, active, ledger, prices);
    const hooks = conversationHooks(project, io.env, active, bus.emit);
    const plan = { on: options.plan };
    const jobs = sessionJobs(bus.emit);
    const run: AgentSetup = {
      plan,
      ref: { agent: "parent" },
      ...(hooks ? { hooks } : {}),
      ...(spendLimit ? { spendLimit } : {}),
      client,
      tools: parent.tools,
      toolDefinitions: parent.definitions,
      toolContext: parentToolContext({ project, active, hints, approvals, baseline, jobs }),
      request: forProvider(active.request, options.provider),
      maxSteps: options.maxSteps,
      emit: bus.emit,
      stamps: active.stamps,
      archive: active.archive,
      compaction: { compactAt, state: active.compaction },
      autoFold: options.autoFold === "on",
      ...(answerSchema ? { answerShape: answerSchema } : {}),
    };
    await subscribeReaders(bus, { ledger, session: active, hints, record: options.record }, settings.readers);
    if (hooks) gapNote += await sessionStartContext(hooks, active.saved);
    const offerServerTools = serverToolsOffer(parent, run, active);
    const compact = compactOnAsk(run, active, asked, bus.settle);
    const memory = conversationMemory(project, io, bus, () => active.id);
    return {
      session: active,
      warm: () => client.warm(),
      async instruct(text, signal) {
        await offerServerTools();
        // `env | hel "why?"` or a pasted key: the conversation, and all that is kept of it, gets it masked.
        const instruction = redactSecrets(text, project.secrets);
        const added = hooks ? await promptContext(hooks, instruction, signal, bus.settle) : "";
        // Not sent: aborted while the hooks ran, or blocked by one (the user's decision, which a front end may go on after).
        if (typeof added !== "string") return added.exitReason === "aborted" ? added : { ...added, blocked: true };
        const message = gapNote + added + instruction + (answerSchema?.note ?? "");
        beginTurn(active.messages, message + ((await memory?.blockFor(message, instruction, active.messages)) ?? ""), run);
        const outcome = await runTurn(active.messages, run, signal);
        // Told once the model has answered: an instruction sent again after none is the same one, note and all.
        if (active.messages.at(-1)?.role !== "user") gapNote = "";
        await settings.flush?.();
        // The session saves from the turn's end; the next instruction waits for that save.
        await bus.settle();
        const candidates = (await memory?.endTurn()) ?? [];
        return candidates.length > 0 ? { ...outcome, candidates } : outcome;
      },
      compact,
      memory: memory?.store ?? null,
      // Only the interactive prompt asks for the changes, and it always keeps a baseline (above).
      controls: conversationControls({
        session: active,
        projectDir: dir,
        options,
        usage: () => ledger.run(),
        changes: changes!,
        compact,
        plan,
        listedModels: modelLister(client),
        pricedModels: Object.keys(prices.models),
        jobs: () => jobs.list(),
      }),
      end: (interrupted, toRows) => closingLines(active, project.sessionsDir ?? dir, interrupted, io, toRows),
      async close() {
        await jobs.endAll();
        await servers?.close();
        await active.close();
        await client.close();
      },
    };
  } catch (error) {
    await servers?.close();
    await session?.close();
    await client.close();
    throw error;
  }
}
