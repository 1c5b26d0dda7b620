// `hel acp`: an editor drives hel over the Agent Client Protocol, JSON-RPC on stdin and stdout through
// the protocol's SDK. Each ACP session is one hel session, opened as `-C <cwd>` (and `--resume <id>`
// for session/load) opens one, in one conversation (conversation/conversation.ts) to which this mode
// hands in its reader of the event stream: updates.ts makes what the editor is shown. session/cancel
// is Ctrl-C: the turn stops and is saved. The MCP servers the editor names join the session's
// (editor-servers.ts). Its modes are the default and plan mode (modes.ts). The problems with the user's and the project's own files, and their command
// files, are the editor's too (resources.ts). Only the protocol goes to stdout; warnings go to stderr.
// It ends when the editor closes stdin (or a signal comes), closing every session it opened.
import { Readable, Writable } from "node:stream";
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext, type SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../../agent/events.js";
import { openConversation, type Conversation } from "../../conversation/conversation.js";
import type { Io, Project } from "../../conversation/project.js";
import { editsOf } from "../../session/edits-by-call.js";
import type { RunOptions } from "../options.js";
import { openProject } from "../open-project.js";
import { apiKeyFor } from "../../model/host.js";
import { editorServers, type EditorServer } from "./editor-servers.js";
import { approvalsThrough } from "./permission.js";
import { commandsUpdate, commandText, diagnosticUpdates } from "./resources.js";
import { promptText } from "./prompt-text.js";
import { modeState, setMode } from "./modes.js";
import { replayUpdates, stopReasonOf, todoEntries, TurnUpdates } from "./updates.js";

interface OpenSession {
  conversation: Conversation;
  /** Its project's command files, which a prompt may name. */
  commands: Project["commands"];
  /** Resolves once every update sent so far is out, in order: a prompt answers only then. */
  delivered(): Promise<void>;
  /** The running prompt's abort, and its end. */
  running: { abort: AbortController; done: Promise<unknown> } | null;
}

/** An error the editor shows: hel's one line, as the JSON-RPC error's message. */
function clientError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  return new RequestError(-32603, `hel: ${error instanceof Error ? error.message : String(error)}`);
}

export async function runAcp(flags: RunOptions, version: string): Promise<number> {
  const sessions = new Map<string, OpenSession>();
  /** Whether the editor shows notices (its capability session.notices). */
  let notices = false;
  /** `client`: the editor's side of the connection, which the session's updates and questions go to. */
  const open = async (cwd: string, resume: string | null, client: AgentContext, mcpServers: readonly EditorServer[]): Promise<string> => {
    const apiKey = apiKeyFor(flags.provider, flags.baseUrl, process.env);
    if (apiKey === undefined) throw RequestError.authRequired(undefined, "DEEPSEEK_API_KEY is not set — give hel acp your DeepSeek API key in its environment (the editor's agent_servers env)");
    // Nothing of a session's own goes to stdout, which is the protocol's.
    const io: Io = { stdout: { write: () => undefined }, stderr: process.stderr, env: process.env, cwd };
    const opened = await openProject({ ...flags, cwd, resume, continue: false, pickSession: false }, apiKey, io);
    const fromEditor = editorServers(mcpServers);
    if (fromEditor.unsupported.length > 0) opened.warn(`left out the editor's MCP servers ${fromEditor.unsupported.join(", ")}: hel speaks stdio and streamable HTTP`);
    const project = { ...opened, options: { ...opened.options, mcpServers: { ...opened.options.mcpServers, ...fromEditor.servers } } };
    // Known once the conversation is open, before any update is sent.
    let id = "";
    let sent = Promise.resolve();
    const send = (update: SessionUpdate) => {
      sent = sent
        .then(() => client.notify(methods.client.session.update, { sessionId: id, update }))
        .catch((error: unknown) => {
          process.stderr.write(`hel: an update could not be sent to the editor (${error instanceof Error ? error.message : String(error)})\n`);
        });
    };
    const askApproval = approvalsThrough(
      (asked, signal) => client.request(methods.client.session.requestPermission, asked, { cancellationSignal: signal }),
      () => id,
      (command) => updates?.callOf(command) ?? null,
    );
    // Made once the conversation is open, with the todo list a resumed session kept.
    let updates: TurnUpdates | null = null;
    const view = (event: AgentEvent) => {
      for (const update of updates?.updatesOf(event) ?? []) send(update);
    };
    const conversation = await openConversation(project, { resume, interactive: false, readers: async () => [view], askApproval }, io);
    id = conversation.session.id;
    updates = new TurnUpdates(project.dir, conversation.session.todo);
    sessions.set(id, { conversation, commands: project.commands, delivered: () => sent, running: null });
    const { messages, edits } = conversation.session;
    if (resume !== null) for (const update of replayUpdates(messages, editsOf(edits), project.dir)) send(update);
    if (resume !== null && conversation.session.todo.length > 0) send({ sessionUpdate: "plan", entries: todoEntries(conversation.session.todo) });
    await sent;
    // Once the editor has the session's id: an update of a session it does not know yet may be dropped.
    setImmediate(() => {
      for (const update of [...diagnosticUpdates(project.diagnostics, notices), ...commandsUpdate(project.commands)]) send(update);
    });
    return id;
  };

  const app = agent({ name: "hel" })
    .onRequest(methods.agent.initialize, ({ params }) => {
      notices = params.clientCapabilities?.session?.notices != null;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
        agentInfo: { name: "hel", version },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      try {
        const sessionId = await open(params.cwd, null, client, params.mcpServers ?? []);
        return { sessionId, modes: modeState(sessions.get(sessionId)!.conversation.controls.plan) };
      } catch (error) {
        throw clientError(error);
      }
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      try {
        // Its lease is this process's own: opening it again would say another process holds it.
        if (sessions.has(params.sessionId)) throw new Error(`session ${params.sessionId} is already open in this editor connection — send its prompts to it as it is, or start another with session/new`);
        const sessionId = await open(params.cwd, params.sessionId, client, params.mcpServers ?? []);
        return { modes: modeState(sessions.get(sessionId)!.conversation.controls.plan) };
      } catch (error) {
        throw clientError(error);
      }
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams(undefined, `no session ${params.sessionId} is open — create it with session/new or session/load`);
      if (!setMode(session.conversation.controls.plan, params.modeId)) throw RequestError.invalidParams(undefined, `hel has no mode ${JSON.stringify(params.modeId)} — its modes are default and plan`);
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams(undefined, `no session ${params.sessionId} is open — create it with session/new or session/load`);
      if (session.running) throw new RequestError(-32603, "hel: a prompt is already running in this session — wait for it, or cancel it");
      const instruction = commandText(promptText(params.prompt), session.commands);
      if (instruction === "") throw RequestError.invalidParams(undefined, "the prompt has no text");
      const abort = new AbortController();
      const done = session.conversation.instruct(instruction, abort.signal);
      session.running = { abort, done };
      try {
        const outcome = await done;
        await session.delivered();
        if (outcome.exitReason === "error") throw new RequestError(-32603, `hel: ${outcome.error ?? "the turn failed"}`);
        return { stopReason: stopReasonOf(outcome.exitReason) };
      } catch (error) {
        throw clientError(error);
      } finally {
        session.running = null;
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort.abort();
    });

  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout), input));
  // A signal ends the turns first, so each is saved, as Ctrl-C does in a terminal.
  const stop = () => {
    for (const session of sessions.values()) session.running?.abort.abort();
    connection.close();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await connection.closed;
  for (const session of sessions.values()) {
    session.running?.abort.abort();
    await session.running?.done.catch(() => undefined);
    await session.conversation.close();
  }
  process.stdin.destroy();
  return 0;
}
