// --json-schema: the JSON Schema a run's final answers must fit, given as JSON or as a file, compiled
// with Ajv (draft-07, or 2020-12 when the schema says so). What the model is told rides at the end of
// the user's message, never in the system prompt, so a run with the flag sends the cached prefix a run
// without it sends. No `response_format` is sent: DeepSeek's json_object mode checks no schema, and
// every request of a turn offers the tools, where a mode that bends the answer towards JSON could
// keep the model from calling them; the check here, and one request more on a mismatch, does the work.
// Loaded only when the flag is given.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { HelError, oneLine, systemProblem } from "../errors.js";
import type { AnswerShape, AnswerVerdict } from "../agent/loop/loop.js";

/** How many of a mismatch's errors the model and the user are told. */
const ERRORS_SHOWN = 10;
const LABEL = "[Answer format]";

export interface AnswerSchema extends AnswerShape {
  /** Added to each instruction: the schema, and that the answer is to be only the value. */
  readonly note: string;
}

/** `given`: the flag's value, JSON when it looks like an object, else a file (relative to `cwd`). */
export async function loadAnswerSchema(given: string, cwd: string): Promise<AnswerSchema> {
  const schema = parseSchema(given.trim().startsWith("{") ? given : await readSchemaFile(resolve(cwd, given)), given);
  const compiled = compile(schema);
  return {
    note: `\n\n${LABEL} End with a final answer that is one JSON value valid against this JSON Schema, and nothing else: no prose, no code fence.\n${JSON.stringify(schema)}`,
    check: (answer) => checkAnswer(answer, compiled),
    retry: (mismatch) => `${LABEL} That answer does not fit the JSON Schema: ${mismatch}. Answer again with only the JSON value.`,
  };
}

async function readSchemaFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new HelError(`--json-schema: cannot read ${path}: ${systemProblem(error)} — give a JSON Schema file, or the schema itself as JSON`, 2);
  }
}

function parseSchema(text: string, given: string): Record<string, unknown> {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new HelError(`--json-schema: ${shown(given)} is not JSON (${oneLine((error as Error).message)}) — give a JSON Schema object`, 2);
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) throw new HelError('--json-schema takes a JSON Schema object, such as {"type":"object"}', 2);
  return schema as Record<string, unknown>;
}

type Validate = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

function compile(schema: Record<string, unknown>): Validate {
  const options = { allErrors: true, strict: false, logger: false } as const;
  const ajv = String(schema.$schema ?? "").includes("2020-12") ? new Ajv2020(options) : new Ajv(options);
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new HelError(`--json-schema is not a valid JSON Schema: ${oneLine((error as Error).message)}`, 2);
  }
}

/** The answer's JSON value if it fits; a code fence around the whole of it is forgiven. */
function checkAnswer(answer: string, validate: Validate): AnswerVerdict {
  const text = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(answer.trim())?.[1] ?? answer;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { mismatch: `it is not JSON (${oneLine((error as Error).message)})` };
  }
  if (validate(value)) return { value };
  const errors = validate.errors ?? [];
  const listed = errors.slice(0, ERRORS_SHOWN).map((e) => `${e.instancePath || "the value"} ${e.message ?? "is not valid"}`);
  return { mismatch: listed.join("; ") + (errors.length > ERRORS_SHOWN ? `; and ${errors.length - ERRORS_SHOWN} more` : "") };
}

function shown(given: string): string {
  return given.length > 40 ? `${JSON.stringify(given.slice(0, 40))}…` : JSON.stringify(given);
}
