// One conversation, assembled once for every input mode: the usage ledger, the baseline of the
// project's files, the model client, the session, hints, children, the tool list, the event stream's
// readers (readers.ts), the user's hooks, and the one run setting (AgentSetup) every request of the
// parent is built from; each child derives its own from it when a tool call starts one. What the
// SessionStart and UserPromptSubmit hooks print rides in the next instruction's own message, ahead of
// its text: the system prompt and every earlier message stay as the prompt cache holds them. The
// input modes (modes/) only drive it: instruct, compact, the controls of the interactive prompt, and
// its end and close.
import { createChildren } from "../agent/children/children.js";
import { compactNow, MIN_SPAN_TOKENS } from "../agent/context/compact-run.js";
import { defaultCompactAt } from "../agent/context/compaction.js";
import { createHints } from "../agent/context/hints.js";
import { createEventBus } from "../agent/event-bus.js";
import type { AgentEvent, ExitReason } from "../agent/events.js";
import { beginTurn, runTurn, type AgentSetup, type TurnOutcome } from "../agent/loop/loop.js";
import { createUsageLedger } from "../agent/usage-ledger.js";
import { spendAnswer, type SpendLimit } from "../agent/spend-limit.js";
import { requestCost } from "../model/prices.js";
import { emptyTotals, totalsOf } from "../agent/usage.js";
import { openHooks } from "../hooks/hooks.js";
import type { HookEvent } from "../hooks/hook-config.js";
import { startBaseline, type Baseline } from "../changes/baseline.js";
import type { ProjectChanges } from "../changes/unified-diff.js";
import { checkpointBefore } from "../session/turn-checkpoints.js";
import { forkSession } from "../session/fork.js";
import { listSessions, resolveSessionId } from "../session/catalog.js";
import { startSession, type ActiveSession } from "../session/session.js";
import type { ProcessGroup } from "../tools/types.js";
import { findSandboxProgram, installAdvice } from "../tools/command/sandbox.js";
import type { AskApproval } from "../tools/command/ask-approval.js";
import { createApprovals } from "../tools/command/approvals.js";
import { redactSecrets } from "../redact.js";
import { toolDefinitions } from "../tools/registry.js";
import { assembleTools, withServerTools } from "../agent/children/assemble-tools.js";
import { mcpServers, type McpServers } from "../mcp/servers.js";
import { traitsOf } from "../agent/toolbox.js";
import type { Tool } from "../tools/types.js";
import { requestConfigFor } from "../settings/request-config.js";
import { EditLog } from "../tools/edit-log.js";
import { keepLostEdits } from "../tools/file/lost-edits.js";
import { conversationControls, type ConversationControls } from "./conversation-controls.js";
import { openModelClient } from "./model-client.js";
import { loadPriceTable } from "./price-table.js";
import type { Io, Project } from "./project.js";
import { subscribeReaders } from "./readers.js";
import { resumeHint } from "./resume-hint.js";
import { createRenderer, type Renderer } from "./term/render.js";

/** GET /models is asked when the user types /model: a server that does not answer in this long is reported. */
const LIST_MODELS_MS = 10_000;

export interface ConversationSettings {
  /** The session to continue (an id or a unique prefix); null: --continue's, or a new one. */
  resume: string | null;
  /** Driven by the interactive prompt: the answer streams live, and a baseline is kept for /diff. */
  interactive: boolean;
  /**
   * A front end of its own reading the event stream in place of the terminal views (an editor's,
   * over ACP): nothing is drawn and nothing goes to stdout.
   */
  view?: (event: AgentEvent) => void;
  /** How this front end asks the user to let a command out of the sandbox; absent: it cannot, and the answer is no. */
  askApproval?: AskApproval;
}

export interface Conversation {
  readonly session: ActiveSession;
  /** Runs one instruction to its end; resolves once the session has saved it. */
  instruct(text: string, signal: AbortSignal): Promise<TurnOutcome>;
  /** The user has begun typing an instruction: the model client readies a connection for it. */
  warm(): void;
  /** Compacts now, keeping `focus` in mind; the conversation's size in tokens when it is too small to gain, else null. */
  compact(focus: string): Promise<number | null>;
  readonly controls: ConversationControls;
  /** Clears the terminal view's spinner, so a prompt is drawn on a clean line. */
  stop(): void;
  /** Prints a line above the spinner. */
  note(line: string): void;
  /** The closing lines: the files the run changed, and how to resume the session (after Ctrl-C, on the line that says so). */
  end(interrupted: boolean): Promise<void>;
  /** Releases the session's lease and the model client's connections. */
  close(): Promise<void>;
}

/** How a driven conversation ended, for the exit status. */
export interface Ended {
  worst: ExitReason;
  /** Ctrl-C stopped it. */
  interrupted: boolean;
  /** Its latest turn could not be saved: work lost once the process ends. */
  lastSaveFailed: boolean;
}

export async function openConversation(project: Project, settings: ConversationSettings, io: Io): Promise<Conversation> {
  const { dir, options, apiKey, warn } = project;
  // Every reader of usage (the terminal, --json, --record, the session) asks this one ledger.
  const prices = await loadPriceTable(io.env);
  const ledger = createUsageLedger({ table: prices, now: () => new Date() });
  // What the project looked like at the start, for review_changes and /diff.
  const baseline = options.delegate || settings.interactive ? startBaseline(dir) : null;
  const bus = createEventBus((error) => io.stderr.write(`hel: ${error instanceof Error ? error.message : String(error)} — that output stops here; the run goes on\n`));
  const client = openModelClient(options.baseUrl, apiKey, io.env, settings.interactive ? "commands" : "flags", project.connections);
  let listed: Promise<string[]> | null = null;
  if (options.tools.some((name) => traitsOf(name)?.runsCommands) && options.access !== "full" && findSandboxProgram(dir) === null) {
    warn(`no sandbox program found, so run_command will refuse to run commands under --access ${options.access} — ${installAdvice()}`);
  }
  let session: ActiveSession | undefined;
  let servers: McpServers | null = null;
  try {
    session = await startSession({
      projectDir: dir,
      resume: settings.resume,
      continueLatest: options.continue,
      adopt: options.trust,
      systemPrompt: project.systemPrompt,
      requestConfig: requestConfigFor(options),
      warn,
      usage: () => ledger.run().total,
      checkpointMaxBytes: options.checkpointMaxMb * 1024 * 1024,
      checkpointSecrets: [apiKey],
    });
    const active = session;
    // Files changed after the last saved turn (a kill before its save, or edits by hand): named here,
    // and told to the model with the next instruction.
    let gapNote = "";
    if (active.saved) {
      const gap = await active.checkpointing.gap(active.turns.at(-1)?.n ?? 0);
      for (const change of gap) warn(`${change.path} ${change.action === "remove" ? "is new" : "changed"} since the last saved turn of session ${active.id} (/rewind puts it back)`);
      if (gap.length > 0) gapNote = `[hel: these files changed after the last saved turn, outside this conversation: ${gap.map((c) => c.path).join(", ")}]\n\n`;
    }
    // What this process's baseline saw; when it saw nothing (a resumed session, whose changes came
    // before this process), what the session's file checkpoints say it changed.
    const sessionChanges = async (from: Baseline): Promise<ProjectChanges> => {
      const seen = await from.changes();
      return seen.files.length > 0 ? seen : ((await active.checkpointing.sinceStart()) ?? seen);
    };
    const last = active.resumedLastTurn;
    if (last && last.exit_reason !== "completed") {
      warn(`session ${active.id}'s last turn was cut short (${last.error ?? last.exit_reason}); the next instruction continues from where it stopped`);
    }
    const compactAt = active.requestConfig.compaction.threshold_tokens ?? 0;
    // What /compact and ask may fill when the user asks, whatever --compact-at says.
    const askedCompactAt = compactAt || defaultCompactAt(options.model);
    const hints = createHints(active.archive);
    // Every child of the session, whatever started it, counts in one sequence.
    const children = createChildren({
      emit: bus.emit,
      budget: { maxSteps: options.childMaxSteps, maxTokens: options.childMaxTokens },
      firstNumber: active.childCount,
      childModel: options.childModel,
      // What the child used and cost, as the ledger totalled it.
      saveTranscript: (transcript) => {
        const spent = ledger.run().delegations.find((d) => d.delegation === transcript.number);
        return active.saveChild({ ...transcript, ...(spent ? { usage: totalsOf(spent) } : {}), cost_usd: spent?.cost_usd ?? null });
      },
    });
    // Escalation is the interactive prompt's default; elsewhere it is asked for (--approval, config).
    const { askApproval } = settings;
    if (options.setBy.approval === "flag" && options.approval === "on-request" && !askApproval) warn("--approval on-request needs a terminal or an editor to ask you in — escalation is off in this run");
    const approval = askApproval ? (options.approval ?? (settings.interactive ? "on-request" : "never")) : "never";
    const approvals = createApprovals({
      mode: approval,
      allow: options.allow,
      // The question is drawn on a clean line: the spinner goes first.
      ask: askApproval
        ? (request, signal) => {
            renderer.stop();
            return askApproval(request, signal);
          }
        : null,
    });
    const tools = assembleTools(
      { ...options, approval },
      {
        archive: active.archive,
        parentMessages: () => active.messages,
        children,
        askBudgetTokens: askedCompactAt,
        changes: baseline ? () => sessionChanges(baseline) : null,
        agents: project.agents,
      },
    );
    // Started at the first instruction, and nothing of them loaded when none is configured.
    servers = mcpServers(options.mcpServers, { projectDir: dir, env: io.env, timeoutS: options.mcpTimeout, warn });
    const definitions = toolDefinitions(tools);
    // With servers, the list is known (and the session told it) once they have started.
    if (!servers) active.setTools(definitions);
    const { maxCost } = options;
    // The session's earlier processes kept their tokens, not their dollars: priced now at its model.
    const before = active.storedUsage;
    const spentBefore = requestCost({ ...before, total_tokens: before.prompt_tokens + before.completion_tokens }, active.request.model, new Date(), prices) ?? 0;
    // Asked by every agent's loop before each request: children spend the same session's money, and
    // what one holds for its request in flight is not there for its siblings'.
    const spendLimit: SpendLimit | undefined =
      maxCost === null
        ? undefined
        : ({ agent, ...ask }) => {
            const now = ledger.run().total.cost_usd;
            const answer = spendAnswer({ ...ask, spent: now === null ? null : now + spentBefore, held: ledger.held(), maxCost, table: prices, at: new Date() });
            if ("hold" in answer) ledger.hold(agent, answer.hold);
            return answer;
          };
    const hooks = project.hooks
      ? openHooks({
          hooks: project.hooks,
          projectDir: dir,
          env: io.env,
          secrets: project.secrets,
          sessionId: () => active.id,
          report: ({ agent, ...ran }) => bus.emit({ ...(agent ? { agent: "child", delegation: agent.number } : { agent: "parent" }), type: "hook", ...ran }),
        })
      : null;
    const run: AgentSetup = {
      ref: { agent: "parent" },
      ...(hooks ? { hooks } : {}),
      ...(spendLimit ? { spendLimit } : {}),
      client,
      tools,
      toolDefinitions: definitions,
      toolContext: {
        projectDir: dir,
        policy: { access: options.access, network: options.network, approvals, readOnlyPaths: project.readOnly, secrets: project.secrets, skillDirs: project.skillDirs },
        session: {
          // Read when a tool needs it: a new session's directory (and id) is made only when first needed.
          get dir() {
            return active.dir;
          },
          cursors: active.cursors,
          claim: () => active.claim(),
          trackCommand: (group: ProcessGroup) => active.trackCommand(group),
          archiveHint: hints.hint,
        },
        changes: { beforeChange: active.checkpointing.beforeChange, beforeWrite: (file, content) => baseline?.keep(file, content) },
        caller: { label: null, editLog: EditLog.forParent(keepLostEdits({ projectDir: dir })) },
      },
      request: active.request,
      maxSteps: options.maxSteps,
      emit: bus.emit,
      stamps: active.stamps,
      archive: active.archive,
      compaction: { compactAt, state: active.compaction },
      autoFold: options.autoFold === "on",
    };

    // stdout carries JSON instead of the answer with --json and --json-events.
    const structured = options.json || options.jsonEvents;
    const renderer = settings.view
      ? viewOnly(settings.view)
      : createRenderer({
          stdout: io.stdout,
          stderr: io.stderr,
          live: settings.interactive && !structured,
          printAnswer: !structured,
          showReasoning: options.showReasoning,
          env: io.env,
          usage: ledger,
        });
    await subscribeReaders(bus, { ledger, session: active, hints, renderer, options, stdout: io.stdout });
    if (hooks) gapNote += hookContext("SessionStart", await hooks.sessionStart(active.saved ? "resume" : "startup", new AbortController().signal));

    // The servers' tools as they are now: set between instructions only, so a turn's requests keep one list.
    // (servers.tools() gives the same list again until a server's list changes.)
    let served: readonly Tool[] | null = null;
    const offerServerTools = async (): Promise<void> => {
      if (!servers) return;
      const now = await servers.tools();
      if (now === served) return;
      served = now;
      run.tools = withServerTools(tools, now);
      run.toolDefinitions = toolDefinitions(run.tools);
      active.setTools([...run.toolDefinitions]);
    };
    const compact = async (focus: string): Promise<number | null> => {
      // Asked for by the user: tried whatever --compact-at and earlier failures say.
      const asked = { ...run, archive: active.archive, compaction: { compactAt: askedCompactAt, state: active.compaction } };
      const done = await compactNow(active.messages, asked, new AbortController().signal, null, 0, { focus: focus || undefined, minSpanTokens: MIN_SPAN_TOKENS });
      await bus.settle();
      return done.tooSmall ?? null;
    };
    return {
      session: active,
      warm: () => client.warm(),
      async instruct(text, signal) {
        await offerServerTools();
        // `env | hel "why?"` or a pasted key: the conversation, and all that is kept of it, gets it masked.
        const instruction = redactSecrets(text, project.secrets);
        let added = "";
        if (hooks) {
          const said = await hooks.userPromptSubmit(instruction, signal);
          await bus.settle();
          // Not sent, so no turn (a blocking hook's line has said why).
          if (signal.aborted) return { answer: null, exitReason: "aborted", usage: emptyTotals(), meter: null };
          if (said.blocked !== null) return { answer: null, exitReason: "error", error: `a UserPromptSubmit hook blocked the instruction: ${said.blocked}`, usage: emptyTotals(), meter: null };
          added = hookContext("UserPromptSubmit", said.context);
        }
        beginTurn(active.messages, gapNote + added + instruction, run);
        const outcome = await runTurn(active.messages, run, signal);
        // Told once the model has answered: an instruction sent again after none is the same one, note and all.
        if (active.messages.at(-1)?.role !== "user") gapNote = "";
        await renderer.flush();
        // The session saves from the turn's end; the next instruction waits for that save.
        await bus.settle();
        return outcome;
      },
      compact,
      controls: conversationControls({
        requestConfig: active.requestConfig,
        fixedMaxTokens: options.maxOutputTokens !== null,
        // Only the interactive prompt asks, and it always keeps a baseline (above).
        changes: () => sessionChanges(baseline!),
        usage: () => ledger.run(),
        maxCost,
        messages: () => active.messages,
        sessionId: () => (active.saved ? active.id : null),
        sessions: () => listSessions(dir),
        resolveSession: (id) => resolveSessionId(dir, id),
        turns: () => active.turns,
        filesOf: (turn) => active.checkpointing.filesOf(turn),
        rewindFiles: async (turn) => {
          const target = checkpointBefore(active.checkpointing.entries, turn);
          return target ? active.checkpointing.restore(target, active.turns.length) : [];
        },
        forkBefore: async (turn) => (await forkSession(dir, active.id, turn - 1)).id,
        compact,
        listedModels: async () => {
          listed ??= client.listModels(AbortSignal.timeout(LIST_MODELS_MS));
          try {
            return { ids: await listed };
          } catch (error) {
            listed = null;
            return { error: error instanceof Error ? error.message : String(error) };
          }
        },
        pricedModels: Object.keys(prices.models),
      }),
      stop: renderer.stop,
      note: renderer.note,
      async end(interrupted) {
        renderer.stop();
        await renderer.flush();
        renderer.finish();
        const hint = active.saved ? await resumeHint(active.id, dir, io.cwd, io.env) : null;
        if (interrupted) {
          // The last line after Ctrl-C says what was kept and how to go on from it.
          const kept =
            hint === null ? "nothing was saved" : active.lastSaveFailed ? `the interrupted turn could not be saved; session ${active.id} keeps the turns before it` : `the turn so far is saved in session ${active.id}`;
          io.stderr.write(`hel: interrupted — ${kept}${hint === null ? "" : `; resume with: ${hint}`}\n`);
        } else if (hint !== null) {
          const lost = active.lastSaveFailed ? " (without the last turn, which could not be saved)" : "";
          io.stderr.write(`session ${active.id} — resume with: ${hint}${lost}\n`);
        }
      },
      async close() {
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

/** A front end that draws nothing: its view reads the events, and the terminal's controls do nothing. */
function viewOnly(observe: (event: AgentEvent) => void): Renderer {
  return { observe, stop: () => undefined, note: () => undefined, flush: async () => undefined, finish: () => undefined };
}

/** A hook's printed context as it opens the next instruction's message; nothing for nothing printed. */
function hookContext(event: HookEvent, said: string): string {
  return said === "" ? "" : `[${event} hook]\n${said}\n\n`;
}

/**
 * Opens a conversation, lets `drive` run it, prints its closing lines, and closes it however the
 * drive ended (a failure skips the closing lines, not the lease's release).
 */
export async function withConversation<T extends Omit<Ended, "lastSaveFailed">>(project: Project, settings: ConversationSettings, io: Io, drive: (conversation: Conversation) => Promise<T>): Promise<T & Ended> {
  const conversation = await openConversation(project, settings, io);
  try {
    const ended = await drive(conversation);
    await conversation.end(ended.interrupted);
    return { ...ended, lastSaveFailed: conversation.session.lastSaveFailed };
  } finally {
    await conversation.close();
  }
}
