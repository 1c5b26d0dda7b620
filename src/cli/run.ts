// Runs hel's main job: one conversation, fed by a one-shot prompt, stdin lines, or the interactive
// prompt. Wires the parts together at the edge — model client, tools, session, and the readers of
// the event stream (terminal, --json, --record) — and returns the exit status.
import { realpath, stat } from "node:fs/promises";
import { createEventBus } from "../agent/event-bus.js";
import type { ExitReason } from "../agent/events.js";
import { beginTurn, runTurn, type AgentRun, type TurnOutcome } from "../agent/loop.js";
import { defaultMaxTokens } from "../agent/request.js";
import { buildSystemPrompt, isoDay, loadProjectRules } from "../agent/system-prompt.js";
import { createDelegateTool } from "../agent/delegate-tool.js";
import { createRecallTool, foldTool } from "../agent/context-tools.js";
import { createHints } from "../agent/hints.js";
import { defaultCompactAt } from "../agent/compaction.js";
import { compactNow } from "../agent/compact-run.js";
import { RECALL_TOOL_NAME } from "../agent/recall.js";
import { ASK_TOOL_NAME, createAskTool } from "../agent/ask.js";
import { HelError } from "../errors.js";
import { createModelClient } from "../model/client.js";
import { Recorder } from "../record/recorder.js";
import { startSession, type ActiveSession } from "../session/session.js";
import { redactSecrets } from "../redact.js";
import { BUILTIN_TOOLS, toolDefinitions } from "../tools/registry.js";
import type { Tool } from "../tools/types.js";
import { createJsonOutput } from "./json-output.js";
import type { RunOptions } from "./options.js";
import { createRenderer } from "./render.js";

export async function runHel(options: RunOptions): Promise<number> {
  const apiKey = process.env.DEEPSEEK_API_KEY;
  if (!apiKey) throw new HelError("DEEPSEEK_API_KEY is not set — export your DeepSeek API key, or try hel offline with `npm run demo`", 2);
  const projectDir = await realProjectDir(options.cwd);

  const loaded = await loadProjectRules(projectDir);
  // The rules go into every request and the snapshot: a key pasted into HEL.md must not go with them.
  const rules = loaded && { ...loaded, text: redactSecrets(loaded.text, [apiKey]) };
  const systemPrompt = buildSystemPrompt({ projectDir, platform: `${process.platform} ${process.arch}`, date: isoDay(new Date()), rules });
  const maxTokens = options.maxOutputTokens ?? defaultMaxTokens(options.effort);
  const request = { model: options.model, maxTokens, effort: options.effort };

  const bus = createEventBus((error) =>
    process.stderr.write(`hel: ${error instanceof Error ? error.message : String(error)} — that output stops here; the run goes on\n`),
  );
  const emit = bus.emit;

  const client = createModelClient({
    baseURL: options.baseUrl,
    apiKey,
    ...envNumber("HEL_STREAM_IDLE_MS", (v) => ({ idleTimeoutMs: v })),
    ...envNumber("HEL_RETRY_BASE_MS", (v) => ({ retryBaseMs: v })),
  });

  const interactive = options.prompt.length === 0 && Boolean(process.stdin.isTTY);
  const compactAt = options.compactAt ?? defaultCompactAt(options.model);
  let session: ActiveSession | undefined;
  try {
    // The session is opened before the tool list is final: delegate_task reads the live conversation.
    session = await startSession({
      projectDir,
      resume: options.resume,
      continueLatest: options.continue,
      systemPrompt,
      requestConfig: {
        model: options.model,
        max_output_tokens: maxTokens,
        max_steps: options.maxSteps,
        effort: options.effort,
        access: options.access,
        delegate: options.delegate,
        compaction: { enabled: compactAt > 0, threshold_tokens: compactAt > 0 ? compactAt : null },
      },
      warn: (line) => process.stderr.write(`hel: ${line}\n`),
    });
    const active = session;
    const hints = createHints(active.archive);
    let askedChildren = active.childCount;
    const contextTools = new Map<string, Tool>([
      [foldTool.name, foldTool as Tool],
      [RECALL_TOOL_NAME, createRecallTool(active.archive) as Tool],
      [
        ASK_TOOL_NAME,
        createAskTool({
          archive: active.archive,
          parentMessages: () => active.messages,
          emit,
          childRun: () => childRun,
          nextNumber: () => ++askedChildren,
          budgetTokens: compactAt || defaultCompactAt(options.model),
          saveTranscript: (transcript) => active.saveChild(transcript),
        }) as Tool,
      ],
    ]);
    const tools: Tool[] = options.tools.map((name) => BUILTIN_TOOLS.get(name) ?? contextTools.get(name)!);
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
      claimSessionDir: () => active.claim(),
    };
    if (options.delegate) {
      tools.push(
        createDelegateTool({
          mode: options.delegate,
          parentMessages: () => active.messages,
          emit,
          childRun: () => childRun,
          firstNumber: active.childCount,
          saveTranscript: (transcript) => active.saveChild(transcript),
        }),
      );
    }
    const definitions = toolDefinitions(tools);
    active.setTools(definitions);
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
      compaction: { compactAt, state: active.compaction },
    };
    const childRun: Omit<AgentRun, "ref" | "emit"> = { ...parentRun };

    const renderer = createRenderer({ stdout: process.stdout, stderr: process.stderr, live: interactive && !options.json, printAnswer: !options.json });
    bus.subscribe((event) => active.observe(event));
    bus.subscribe((event) => (event.type === "turn_start" && event.agent === "parent" ? hints.newTurn() : undefined));
    bus.subscribe(renderer.observe);
    if (options.json) bus.subscribe(createJsonOutput((line) => process.stdout.write(line), () => active.id));
    if (options.record) {
      const recorder = new Recorder(options.record);
      recorder.setSessionId(active.id);
      bus.subscribe(recorder.observe);
    }

    const instruct = async (text: string, signal: AbortSignal): Promise<TurnOutcome> => {
      beginTurn(active.messages, text, parentRun);
      const outcome = await runTurn(active.messages, parentRun, signal);
      // The session saves from the turn's end; the next instruction waits for that save.
      await bus.settle();
      return outcome;
    };

    let worst: ExitReason = "completed";
    if (options.prompt.length > 0) {
      worst = (await withSignals((signal) => instruct(options.prompt.join(" "), signal))).outcome.exitReason;
    } else if (interactive) {
      // Loaded only here: a one-shot run has no use for readline and the terminal UI.
      const { runInteractive } = await import("./interactive.js");
      const compact = async (focus: string, signal: AbortSignal): Promise<void> => {
        // Asked for by the user: tried whatever --compact-at and earlier failures say.
        const settings = { compactAt: compactAt || defaultCompactAt(options.model), state: active.compaction };
        const done = await compactNow(active.messages, { ...parentRun, archive: active.archive, compaction: settings }, signal, null, 0, focus || undefined);
        if (!done.requested) process.stderr.write("(nothing to compact yet)\n");
        await bus.settle();
      };
      await runInteractive({ instruct, compact, stop: renderer.stop });
    } else {
      const { stdinInstructions } = await import("./stdin-lines.js");
      for await (const line of stdinInstructions(process.stdin)) {
        const { outcome, stopped } = await withSignals((signal) => instruct(line, signal));
        if (outcome.exitReason !== "completed" || stopped) {
          worst = stopped ? "aborted" : outcome.exitReason;
          break;
        }
      }
      // Stopping before EOF leaves the pipe open, which would keep the process alive.
      process.stdin.destroy();
    }
    renderer.stop();
    if (active.saved) {
      const lost = active.lastSaveFailed ? " (without the last answer, which could not be saved)" : "";
      process.stderr.write(`session ${active.id} — resume with: hel --resume ${active.id}${lost}\n`);
    }
    // An answer that could not be saved is work lost once the process ends: an I/O failure.
    return worst === "completed" && !active.lastSaveFailed ? 0 : 1;
  } finally {
    await session?.close();
    await client.close();
  }
}

/**
 * Runs one instruction with Ctrl-C and SIGTERM aborting it instead of killing the process, so the
 * conversation is left valid and the lease released. `stopped` says a signal came — possibly after
 * the answer, while it was being saved — and the run must end instead of reading more instructions.
 */
async function withSignals(run: (signal: AbortSignal) => Promise<TurnOutcome>): Promise<{ outcome: TurnOutcome; stopped: boolean }> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.on("SIGINT", abort);
  process.on("SIGTERM", abort);
  try {
    const outcome = await run(controller.signal);
    return { outcome, stopped: controller.signal.aborted };
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
}

/** The project directory's real path: path checks compare real paths, so symlinks cannot lead out. */
async function realProjectDir(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) throw new HelError(`the project directory ${dir} does not exist or is not a directory — check -C`, 2);
  return realpath(dir);
}

function envNumber<T>(name: string, make: (value: number) => T): T | Record<string, never> {
  const value = Number(process.env[name]);
  return process.env[name] && Number.isFinite(value) && value > 0 ? make(value) : {};
}
