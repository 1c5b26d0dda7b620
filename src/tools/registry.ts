// The tools as the request offers them, and the one place a model's tool call is run. Definitions are
// derived from the zod schemas and are byte-stable for the same tools, since DeepSeek's prefix cache
// only hits on an identical prefix. Running a call never throws: every failure, from unparsable
// arguments to EACCES, becomes an error result ("Error: …") the model can act on, redacted and cut to
// the conversation's bound like any result.
import { z } from "../zod.js";
import type { ToolCall, ToolDefinition } from "../wire/messages.js";
import { mapEditLines, type FileEdit } from "../changes/file-edit.js";
import { formatSize } from "../format.js";
import { oneLine as oneLineText } from "../errors.js";
import { redactSecrets } from "../redact.js";
import { cutLongError, spillIfLong } from "./spill.js";
import { ToolError, type Tool, type ToolContext, type ToolDetails, type ToolPolicy } from "./types.js";

export interface ToolResult {
  content: string;
  isError: boolean;
  /** What the call changed in a file, for people; not part of the content the model gets. */
  edit?: FileEdit;
  /** How the call ended, for readers (the terminal, --json-events); the model gets the content. */
  details?: ToolDetails;
}

export function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: parametersOf(tool) },
  }));
}

const BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"] as const;

// A schema measured before it is offered (delegate_task's, with named agents) is converted once.
const converted = new WeakMap<z.ZodType, Record<string, unknown>>();

function parametersOf(tool: Tool): Record<string, unknown> {
  if (tool.parameters) return tool.parameters;
  const known = converted.get(tool.schema);
  if (known) return known;
  const { $schema: _, ...schema } = z.toJSONSchema(tool.schema, {
    io: "input",
    // Every request carries the definition, and hel checks every call against the zod schema itself
    // (its errors say what to resend): what the model is sent keeps the types, enums, required fields
    // and descriptions, and leaves the bounds and the refusal of unknown fields to that check.
    override: ({ jsonSchema }) => {
      for (const key of BOUNDS) delete jsonSchema[key];
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  });
  converted.set(tool.schema, schema);
  return schema;
}

/** Runs one call; the result carries the edit and the details the call reported, so those of `ctx.report` are not told. */
export async function executeToolCall(call: ToolCall, tools: readonly Tool[], ctx: ToolContext): Promise<ToolResult> {
  const name = call.function.name;
  const { policy } = ctx;
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) return unknownTool(name, tools, policy);

  let args: unknown;
  try {
    // Some models send "" for a call without arguments.
    args = JSON.parse(call.function.arguments.trim() === "" ? "{}" : call.function.arguments);
  } catch {
    return unparsedArgumentsResult(name, call.function.arguments, tools, policy);
  }
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `- ${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`);
    return failure(`invalid arguments for ${name}:\n${problems.join("\n")}\nResend the call with arguments that fix this (fields: ${fieldsOf(tool)})`, policy);
  }

  let edit: FileEdit | undefined;
  const recordEdit = (made: FileEdit) => {
    edit = mapEditLines(made, (line) => redactSecrets(line, policy.secrets));
  };
  const ran = await runParsed(tool, parsed.data, ctx, recordEdit);
  // Notices of this agent's edits that a command of another agent undid (edit-log.ts).
  const notices = ctx.caller.editLog.take();
  const result = notices.length > 0 ? { ...ran, content: [ran.content, ...notices].join("\n") } : ran;
  // An edit made before a later failure (its result could not be spilled) still changed the file.
  return edit ? { ...result, edit } : result;
}

/**
 * The result of a call whose arguments (`raw`) are not JSON: it was not run. It says where the text
 * broke and gives the schema the arguments must follow.
 */
export function unparsedArgumentsResult(name: string, raw: string, tools: readonly Tool[], policy: Pick<ToolPolicy, "secrets">): ToolResult {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) return unknownTool(name, tools, policy);
  return failure(
    `the arguments of ${name} are not valid JSON (${jsonError(redactSecrets(raw, policy.secrets))}), so the call was not run. Resend the call with its arguments as one JSON object of this schema: ${JSON.stringify(parametersOf(tool))}`,
    policy,
  );
}

function unknownTool(name: string, tools: readonly Tool[], policy: Pick<ToolPolicy, "secrets">): ToolResult {
  const available = tools.map((t) => t.name).join(", ") || "none";
  return failure(`unknown tool ${JSON.stringify(name)}. Available tools: ${available}`, policy);
}

async function runParsed(tool: Tool, args: unknown, ctx: ToolContext, recordEdit: (edit: FileEdit) => void): Promise<ToolResult> {
  const { name } = tool;
  const { policy } = ctx;
  let content: string;
  let details: { details: ToolDetails } | Record<string, never> = {};
  const report = { onOutput: ctx.report.onOutput, recordEdit, recordDetails: (made: ToolDetails) => (details = { details: made }) };
  try {
    content = redactSecrets(await tool.run(args, { ...ctx, report }), policy.secrets);
    const hint = ctx.session.archiveHint(name, args);
    if (hint) content = `${content}\n${hint}`;
  } catch (e) {
    // A call refused before it ran still says how (a command the user would not let out of the sandbox).
    return { ...failure(e instanceof ToolError ? e.message : `${name} failed: ${oneLine(e)}`, policy), ...details };
  }
  if (!tool.spill) return { content, isError: false, ...details };
  try {
    return { content: await spillIfLong(content, ctx), isError: false, ...details };
  } catch (e) {
    return failure(`${name} ran, but its result (${formatSize(Buffer.byteLength(content))}) was too long for the conversation and could not be saved to the session's spill directory: ${oneLine(e)}`, policy);
  }
}

/** Error texts quote the model's call (its tool name, its argument keys, its JSON, a path): redacted, then cut, like results. */
function failure(message: string, policy: Pick<ToolPolicy, "secrets">): ToolResult {
  return { content: cutLongError(`Error: ${redactSecrets(message, policy.secrets)}`), isError: true };
}

/**
 * The parser's complaint about text that is not JSON, given the text with its secrets taken out: the
 * complaint quotes a few characters around the error, which could be the start of a key cut off where
 * redaction no longer recognises it. "[REDACTED]" is no more JSON than the key was, so the
 * redacted text fails where the text did.
 */
function jsonError(redacted: string): string {
  try {
    JSON.parse(redacted);
    return "unexpected text";
  } catch (e) {
    return oneLine(e);
  }
}

function fieldsOf(tool: Tool): string {
  const properties = parametersOf(tool).properties;
  return typeof properties === "object" && properties !== null ? Object.keys(properties).join(", ") : "(none)";
}

function oneLine(e: unknown): string {
  return oneLineText(e instanceof Error ? e.message : String(e));
}
