// Runs hel's main job: one conversation, fed by a one-shot prompt, stdin lines, or the interactive
// prompt. Wires the parts together at the edge — model client, tools, session, and the readers of
// the event stream (terminal, --json, --record) — and returns the exit status.
import { realpath, stat } from "node:fs/promises";
import { createChildren, type ChildSettings } from "../agent/children/child-run.js";
import { createEventBus } from "../agent/event-bus.js";
import type { ExitReason } from "../agent/events.js";
import { beginTurn, runTurn, type AgentRun, type TurnOutcome } from "../agent/loop/loop.js";
import { createReviewTool } from "../agent/children/review-tool.js";
import { buildSystemPrompt, isoDay, loadProjectRules } from "../agent/system-prompt.js";
import { createDelegateTool } from "../agent/children/delegate-tool.js";
import { createUsageLedger } from "../agent/usage-ledger.js";
import { totalsOf } from "../agent/usage.js";
import { createRecallTool, foldTool } from "../agent/context/context-tools.js";
import { createHints } from "../agent/context/hints.js";
import { defaultCompactAt } from "../agent/context/compaction.js";
import { compactNow } from "../agent/context/compact-run.js";
import { RECALL_TOOL_NAME } from "../agent/context/recall.js";
import { ASK_TOOL_NAME, createAskTool } from "../agent/children/ask.js";
import { HelError } from "../errors.js";
import { helDirProblem } from "../fs/hel-dir.js";
import { createModelClient, type ModelClient } from "../model/client.js";
import { ModelError } from "../model/errors.js";
import { Recorder } from "../record/recorder.js";
import { startBaseline, type Baseline } from "../changes/baseline.js";
import type { ProjectChanges } from "../changes/unified-diff.js";
import { checkpointBefore } from "../session/checkpointing.js";
import { forkSession } from "../session/fork.js";
import { listSessions, resolveSessionId } from "../session/catalog.js";
import { startSession, type ActiveSession } from "../session/session.js";
import { redactSecrets } from "../redact.js";
import { BUILTIN_TOOLS, toolDefinitions } from "../tools/registry.js";
import type { ProcessGroup } from "../tools/command/process-group.js";
import { findSandboxProgram, installAdvice } from "../tools/command/sandbox.js";
import type { Tool } from "../tools/types.js";
import { conversationControls } from "./conversation-controls.js";
import type { ConversationEnd, Interactive } from "./interactive.js";
import { applyConfig, configPaths, loadConfig, requestConfigFor } from "./config.js";
import { createJsonOutput } from "./json/json-output.js";
import type { RunOptions } from "./options.js";
import { oneShotInstruction } from "./one-shot-input.js";
import { loadPriceTable } from "./price-table.js";
import { findProjectRoot } from "./project-root.js";
import { createRenderer } from "./term/render.js";
import { resumeHint } from "./resume-hint.js";

/** The interactive prompt, opened once and kept for the conversations that /new and /resume start. */
interface Terminal {
  prompt: Interactive | null;
  /** How the last conversation ended, and the model and effort it had then. */
  next: (ConversationEnd & Pick<RunOptions, "model" | "effort">) | null;
}

export async function runHel(flags: RunOptions): Promise<number> {
  const terminal: Terminal = { prompt: null, next: null };
  try {
    let code = await runConversation(flags, terminal);
    for (let next = terminal.next; next && !next.exit; next = terminal.next) {
      terminal.next = null;
      // A new session goes on with the settings chosen so far; a resumed one has its own.
      const settings = next.sessionId === null ? { model: next.model, effort: next.effort } : {};
      code = await runConversation({ ...flags, ...settings, prompt: [], resume: next.sessionId, pickSession: false, continue: false }, terminal);
    }
    return code;
  } finally {
    terminal.prompt?.close();
  }
}

async function runConversation(flags: RunOptions, terminal: Terminal): Promise<number> {
  const apiKey = process.env.DEEPSEEK_API_KEY;
  if (!apiKey) throw new HelError("DEEPSEEK_API_KEY is not set — export your DeepSeek API key, or try hel offline with `npm run try`", 2);
  // Read before anything else, so an empty instruction ends the run before it costs anything.
  const oneShot = flags.prompt.length > 0 ? await oneShotInstruction(flags.prompt, process.stdin) : null;
  const interactive = oneShot === null && Boolean(process.stdin.isTTY);
  const { root: projectDir, here } = await findProjectRoot(await realStartDir(flags.cwd));
  const options = applyConfig(flags, await loadConfig(configPaths(projectDir, process.env)));
  const openPrompt = async () => (terminal.prompt ??= await (await import("./interactive.js")).openInteractive(projectDir, [apiKey]));
  const resume = options.pickSession ? await pickResume(projectDir, openPrompt, interactive ? null : terminal) : options.resume;
  // Every reader of usage (the terminal, --json, --record, the session) asks this one ledger.
  const ledger = createUsageLedger({ table: await loadPriceTable(process.env), now: () => new Date() });
  // What the project looked like at the start, for review_changes and /diff.
  const baseline = options.delegate || interactive ? startBaseline(projectDir) : null;

  const warn = (line: string) => process.stderr.write(`hel: ${line}\n`);
  const unwritable = await helDirProblem(projectDir);
  if (unwritable) throw new HelError(`${unwritable}, so hel could not save this session — make it writable, or run hel in a project you can write`, 1);
  const loaded = await loadProjectRules(projectDir, here, warn);
  // The rules go into every request and the snapshot: a key pasted into HEL.md must not go with them.
  const rules = loaded.map((r) => ({ ...r, text: redactSecrets(r.text, [apiKey]) }));
  const systemPrompt = buildSystemPrompt({ projectDir, here, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules });

  const bus = createEventBus((error) =>
    process.stderr.write(`hel: ${error instanceof Error ? error.message : String(error)} — that output stops here; the run goes on\n`),
  );
  const emit = bus.emit;

  const connected = createModelClient({
    baseURL: options.baseUrl,
    apiKey,
    ...envNumber("HEL_STREAM_IDLE_MS", (v) => ({ idleTimeoutMs: v })),
    ...envNumber("HEL_RETRY_BASE_MS", (v) => ({ retryBaseMs: v })),
  });
  const client = process.env.HEL_DEBUG === "1" ? printingStacks(connected) : connected;

  if (options.tools.includes("run_command") && options.access !== "full" && findSandboxProgram(projectDir) === null) {
    warn(`no sandbox program found, so run_command will refuse to run commands under --access ${options.access} — ${installAdvice()}`);
  }
  const compactAt = options.compactAt ?? defaultCompactAt(options.model);
  let session: ActiveSession | undefined;
  try {
    // The session is opened before the tool list is final: delegate_task reads the live conversation.
    session = await startSession({
      projectDir,
      resume,
      continueLatest: options.continue,
      systemPrompt,
      requestConfig: (stored) => ({
        ...requestConfigFor(options)(stored),
        compaction: { enabled: compactAt > 0, threshold_tokens: compactAt > 0 ? compactAt : null },
      }),
      warn,
      usage: () => ledger.run().total,
      checkpointMaxBytes: options.checkpointMaxMb * 1024 * 1024,
    });
    const active = session;
    const last = active.resumedLastTurn;
    if (last && last.exit_reason !== "completed") {
      warn(`session ${active.id}'s last turn was cut short (${last.error ?? last.exit_reason}); the next instruction continues from where it stopped`);
    }
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
    const { model, max_output_tokens: maxTokens } = active.requestConfig;
    const request = { model, maxTokens, effort: active.requestConfig.effort ?? options.effort };
    const hints = createHints(active.archive);
    // Every child of the session, whatever started it, counts in one sequence.
    const children = createChildren({
      emit,
      settings: () => childSettings,
      firstNumber: active.childCount,
      // What the child used and cost, as the ledger totalled it.
      saveTranscript: (transcript) => {
        const spent = ledger.run().delegations.find((d) => d.delegation === transcript.number);
        return active.saveChild({ ...transcript, ...(spent ? { usage: totalsOf(spent) } : {}), cost_usd: spent?.cost_usd ?? null });
      },
    });
    const contextTools = new Map<string, Tool>([
      [foldTool.name, foldTool as Tool],
      [RECALL_TOOL_NAME, createRecallTool(active.archive) as Tool],
      [
        ASK_TOOL_NAME,
        createAskTool({
          archive: active.archive,
          parentMessages: () => active.messages,
          children,
          budgetTokens: compactAt || defaultCompactAt(options.model),
        }) as Tool,
      ],
    ]);
    // A tool that only edits would be refused every call under read-only access: it is not offered.
    const tools: Tool[] = options.tools
      .map((name) => BUILTIN_TOOLS.get(name) ?? contextTools.get(name)!)
      .filter((tool) => !(tool.onlyEdits && options.access === "read-only"));
    const toolContext = {
      projectDir,
      access: options.access,
      // Read when a tool runs: a new session's directory (and id) is made only when first needed.
      get sessionDir() {
        return active.dir;
      },
      cursors: active.cursors,
      archiveHint: hints.hint,
      secrets: [apiKey],
      network: options.network,
      claimSessionDir: () => active.claim(),
      trackCommand: (group: ProcessGroup) => active.trackCommand(group),
      ...(baseline ? { beforeWrite: baseline.keep } : {}),
      beforeChange: active.checkpointing.beforeChange,
    };
    if (options.delegate && baseline) {
      const parentMessages = () => active.messages;
      tools.push(
        createDelegateTool({ mode: options.delegate, parentMessages, children }),
        createReviewTool({ parentMessages, children, changes: () => sessionChanges(baseline) }),
      );
    }
    const definitions = toolDefinitions(tools);
    active.setTools(definitions);
    const compaction = { compactAt, state: active.compaction };
    const parentRun: AgentRun = {
      ref: { agent: "parent" },
      client,
      tools,
      toolDefinitions: definitions,
      toolContext,
      request,
      maxSteps: options.maxSteps,
      emit,
      stamps: active.stamps,
      archive: active.archive,
      compaction,
    };
    const childSettings: ChildSettings = {
      client,
      tools,
      toolDefinitions: definitions,
      toolContext,
      request,
      stamps: active.stamps,
      archive: active.archive,
      compaction,
      budget: { maxSteps: options.childMaxSteps, maxTokens: options.childMaxTokens },
    };

    // stdout carries JSON instead of the answer with --json and --json-events.
    const structured = options.json || options.jsonEvents;
    const renderer = createRenderer({
      stdout: process.stdout,
      stderr: process.stderr,
      live: interactive && !structured,
      printAnswer: !structured,
      showReasoning: options.showReasoning,
      env: process.env,
      usage: ledger,
    });
    // The ledger first: the readers after it (the session's save included) ask it about the event they read.
    bus.subscribe(ledger.observe);
    bus.subscribe((event) => active.observe(event));
    bus.subscribe((event) => (event.type === "turn_start" && event.agent === "parent" ? hints.newTurn() : undefined));
    bus.subscribe(renderer.observe);
    if (options.json) bus.subscribe(createJsonOutput((line) => process.stdout.write(line), () => active.id, ledger));
    if (options.jsonEvents) {
      const { createJsonEvents } = await import("./json/json-events.js");
      bus.subscribe(createJsonEvents((line) => process.stdout.write(line), () => active.id, ledger));
    }
    if (options.record) {
      const recorder = new Recorder(options.record, ledger);
      recorder.setSessionId(active.id);
      bus.subscribe(recorder.observe);
    }

    const instruct = async (text: string, signal: AbortSignal): Promise<TurnOutcome> => {
      beginTurn(active.messages, gapNote + text, parentRun);
      gapNote = "";
      const outcome = await runTurn(active.messages, parentRun, signal);
      await renderer.flush();
      // The session saves from the turn's end; the next instruction waits for that save.
      await bus.settle();
      return outcome;
    };

    let worst: ExitReason = "completed";
    let interrupted = false;
    if (oneShot !== null) {
      const { outcome, stopped } = await withSignals((signal) => instruct(oneShot, signal));
      worst = outcome.exitReason;
      interrupted = stopped === "SIGINT";
    } else if (interactive) {
      // Loaded only here: a one-shot run has no use for readline and the terminal UI.
      const prompt = await openPrompt();
      const controls = conversationControls({
        request,
        requestConfig: active.requestConfig,
        fixedMaxTokens: options.maxOutputTokens !== null,
        // Interactive runs always keep a baseline (above).
        changes: () => sessionChanges(baseline!),
        usage: () => ledger.run(),
        messages: () => active.messages,
        sessionId: () => (active.saved ? active.id : null),
        sessions: () => listSessions(projectDir),
        resolveSession: (id) => resolveSessionId(projectDir, id),
        turns: () => active.turns,
        filesOf: (turn) => active.checkpointing.filesOf(turn),
        rewindFiles: async (turn) => {
          const target = checkpointBefore(active.checkpointing.entries, turn);
          return target ? active.checkpointing.restore(target, active.turns.length) : [];
        },
        forkBefore: async (turn) => (await forkSession(projectDir, active.id, turn - 1)).id,
        compact: async (focus) => {
          // Asked for by the user: tried whatever --compact-at and earlier failures say.
          const settings = { compactAt: compactAt || defaultCompactAt(options.model), state: active.compaction };
          const done = await compactNow(active.messages, { ...parentRun, archive: active.archive, compaction: settings }, new AbortController().signal, null, 0, focus || undefined);
          await bus.settle();
          return done.requested;
        },
      });
      const ended = await prompt.converse({ instruct, stop: renderer.stop, note: renderer.note, controls, resumed: active.saved });
      terminal.next = { ...ended, model: request.model, effort: request.effort };
    } else {
      const { stdinInstructions } = await import("./stdin-lines.js");
      for await (const line of stdinInstructions(process.stdin)) {
        const { outcome, stopped } = await withSignals((signal) => instruct(line, signal));
        if (outcome.exitReason !== "completed" || stopped) {
          worst = stopped ? "aborted" : outcome.exitReason;
          interrupted = stopped === "SIGINT";
          break;
        }
      }
      // Stopping before EOF leaves the pipe open, which would keep the process alive.
      process.stdin.destroy();
    }
    renderer.stop();
    await renderer.flush();
    renderer.finish();
    if (active.saved) {
      const lost = active.lastSaveFailed ? " (without the last turn, which could not be saved)" : "";
      process.stderr.write(`session ${active.id} — resume with: ${await resumeHint(active.id, projectDir, process.cwd())}${lost}\n`);
    }
    if (interrupted) {
      process.stderr.write("hel: interrupted\n");
      return 130;
    }
    // A turn that could not be saved is work lost once the process ends: an I/O failure.
    return worst === "completed" && !active.lastSaveFailed ? 0 : 1;
  } finally {
    await session?.close();
    await client.close();
  }
}

/**
 * The session `hel --resume` without an id continues, picked from a numbered list in the terminal;
 * null (a new session) when the user picks none. A one-shot run closes the prompt again after.
 */
async function pickResume(projectDir: string, openPrompt: () => Promise<Interactive>, closeAfter: Terminal | null): Promise<string | null> {
  if (!process.stdin.isTTY) throw new HelError("--resume needs a session id when stdin is not a terminal — `hel sessions ls` lists them", 2);
  const prompt = await openPrompt();
  const id = await prompt.pick(await listSessions(projectDir));
  if (closeAfter) {
    prompt.close();
    closeAfter.prompt = null;
  }
  if (id === null) process.stderr.write("starting a new session\n");
  return id;
}

/**
 * Runs one instruction with Ctrl-C and SIGTERM aborting it instead of killing the process, so the
 * conversation is left valid, saved and the lease released. `stopped` names the signal that came —
 * possibly after the answer, while it was being saved — and the run must end instead of reading
 * more instructions.
 */
async function withSignals(run: (signal: AbortSignal) => Promise<TurnOutcome>): Promise<{ outcome: TurnOutcome; stopped: NodeJS.Signals | null }> {
  const controller = new AbortController();
  let stopped: NodeJS.Signals | null = null;
  const on = (signal: NodeJS.Signals) => () => {
    stopped ??= signal;
    controller.abort();
  };
  const onInt = on("SIGINT");
  const onTerm = on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return { outcome: await run(controller.signal), stopped };
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

/** The starting folder's real path: path checks compare real paths, so symlinks cannot lead out. */
async function realStartDir(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new HelError(`the project directory ${dir} does not exist or is not a directory — check -C`, 2);
  return realpath(dir);
}

/** HEL_DEBUG=1: a request's failure, which the turn reports in one line, is also printed with its stack. */
function printingStacks(client: ModelClient): ModelClient {
  return {
    baseURL: client.baseURL,
    close: () => client.close(),
    complete: (body, signal, handlers) =>
      client.complete(body, signal, handlers).catch((error: unknown) => {
        if (!(error instanceof ModelError && error.kind === "aborted")) console.error(error);
        throw error;
      }),
  };
}

function envNumber<T>(name: string, make: (value: number) => T): T | Record<string, never> {
  const value = Number(process.env[name]);
  return process.env[name] && Number.isFinite(value) && value > 0 ? make(value) : {};
}
