// The API key, and every credential commands are kept from, masked ([REDACTED]) in all hel writes or
// sends but the Authorization header: the instruction, piped stdin and a rules file in the exact request
// body, the snapshot and every --record file; a command's environment without credential-valued
// variables, and their values masked in what a command prints. The built CLI against the simulator.
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { HEL, helEnv, runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const KEY = "sk-live-0123456789abcdef";

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<[string, string][]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return Promise.all(files.map(async (f) => [f, await readFile(f, "utf8")] as [string, string]));
}

it("the key in piped stdin, the instruction and HEL.md is masked in the request, the snapshot and every record", async () => {
  sim = await startSimulator({ policy: "echo" });
  const project = await tempProject();
  await writeFile(join(project, "HEL.md"), `Deploy with ${KEY} when asked.\n`);
  const record = join(project, "rec");
  // `env | hel "why?"`, through a real pipe.
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      "sh",
      ["-c", `printf 'DEEPSEEK_API_KEY=%s\\nHOME=/root\\n' "$DEEPSEEK_API_KEY" | "$NODE" "$HEL" -C "$P" --record "$R" "why does $DEEPSEEK_API_KEY fail?"`],
      { env: { ...helEnv(sim.url), DEEPSEEK_API_KEY: KEY, HEL, P: project, R: record, NODE: process.execPath } },
      (error, stdout, stderr) => resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr }),
    ),
  );
  expect(result.code).toBe(0);
  expect(sim.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  const body = sim.requests[0]!.body as ChatRequest;
  expect(body.messages[0]!.content).toContain("Deploy with [REDACTED] when asked.");
  expect(body.messages[1]!.content).toBe("[#1] why does [REDACTED] fail?\n\n```\nDEEPSEEK_API_KEY=[REDACTED]\nHOME=/root\n```");
  expect(JSON.stringify(body)).not.toContain(KEY);

  const written = [...(await filesUnder(join(project, ".hel"))), ...(await filesUnder(record))];
  expect(written.map(([f]) => f)).toEqual(expect.arrayContaining([expect.stringMatching(/snapshot\.json$/), join(record, "record.json"), join(record, "raw", "requests.jsonl")]));
  for (const [file, text] of written) expect(text, file).not.toContain(KEY);
  const snapshot = written.find(([f]) => f.endsWith("snapshot.json"))![1];
  expect(snapshot).toContain("why does [REDACTED] fail?");
  expect(result.stderr + result.stdout).not.toContain(KEY);
});

it("a command's environment loses credential-valued variables, and their values are masked in its output", async () => {
  const credentials = {
    DB_URL: "postgres://user:pw-of-the-db@db.example:5432/app",
    MYPASS: "hunter2hunter2",
    SMTP_PASSWD: "mail-password-1",
    DEPLOY_PWD: "deploy-password-2",
    GCP_CREDENTIALS_JSON: "credentials-value-3",
    PROXY_AUTH: "proxy-auth-value-4",
    SESSION_COOKIE: "cookie-value-5678",
    PRIVATE_CERT: "private-value-9012",
  };
  const project = await tempProject();
  // A file of the project that happens to hold one of them: recognised by value.
  await writeFile(join(project, "notes.txt"), `the db password is pw-of-the-db, mine is ${credentials.MYPASS}\n`);
  sim = await startSimulator({
    script: [{ tool_calls: [{ name: "run_command", arguments: JSON.stringify({ command: "env | sort; cat notes.txt" }) }] }, { content: "done" }],
  });
  const result = await runHel({
    args: ["-C", project, "look"],
    baseUrl: sim.url,
    env: { ...credentials, GIT_AUTHOR_NAME: "Ada Lovelace", KEEP_ME: "visible-value" },
  });
  expect(result.code).toBe(0);
  const messages = (sim.requests.at(-1)!.body as ChatRequest).messages;
  const output = String(messages.findLast((m) => m.role === "tool")!.content);
  for (const [name, value] of Object.entries(credentials)) {
    expect(output).not.toContain(`${name}=`);
    expect(output).not.toContain(value);
  }
  expect(output).not.toContain("pw-of-the-db");
  expect(output).toContain("the db password is [REDACTED], mine is [REDACTED]");
  expect(output).toContain("KEEP_ME=visible-value");
  expect(output).toContain("GIT_AUTHOR_NAME=Ada Lovelace");
  expect(output).toMatch(/^PWD=/m);
});
