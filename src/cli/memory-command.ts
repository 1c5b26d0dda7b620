// `hel memory ls|show|add|rm|edit|review`: the facts kept across sessions (design §19), this project's
// and the user's own. The commands are the user's own doing: they work whatever the `memory` setting
// says (which governs what a conversation recalls and offers). A fact holding one of this run's secrets
// is refused, as everywhere; errors are one line with what to do.
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { findProjectRoot } from "../conversation/project-root.js";
import { HelError } from "../errors.js";
import type { Fact } from "../memory/fact.js";
import { MemoryRefused, MemoryStore, type Listed } from "../memory/store.js";
import { credentialValues } from "../tools/command/environment.js";
import { userConfigDir } from "./config.js";
import { reviewFacts, type ReviewAsk } from "./memory-review.js";
import type { Invocation } from "./options.js";
import { styleFor } from "./term/kit/style.js";
import { formatFact, formatFactList } from "./term/memory-view.js";

type MemoryInvocation = Extract<Invocation, { kind: "memory" }>;

export async function runMemoryCommand(invocation: MemoryInvocation, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const start = await realpath(invocation.cwd).catch(() => {
    throw new HelError(`the project directory ${invocation.cwd} does not exist — check -C`, 2);
  });
  const { root } = await findProjectRoot(start);
  const secrets = [...(env.DEEPSEEK_API_KEY ? [env.DEEPSEEK_API_KEY] : []), ...credentialValues(env)];
  const store = new MemoryStore({ projectDir: root, userDir: join(userConfigDir(env), "memory"), env, secrets });
  const out = (lines: string[] | string) => process.stdout.write(`${Array.isArray(lines) ? lines.join("\n") : lines}\n`);
  const json = (value: unknown) => out(JSON.stringify(value));
  const text = invocation.args.slice(invocation.action === "edit" ? 1 : 0).join(" ");
  try {
    switch (invocation.action) {
      case "ls": {
        const listed = [...(await store.facts()), ...(await store.pending())];
        if (invocation.json) json(listed.map(asJson));
        else out(formatFactList(listed, styleFor(process.stdout, env)));
        return 0;
      }
      case "show": {
        const listed = await store.find(needed(invocation.args[0], "show"));
        if (invocation.json) json(asJson(listed));
        else out(formatFact(listed));
        return 0;
      }
      case "add": {
        const fact = await store.add(invocation.user ? "user" : "project", needed(text || undefined, "add"), "user");
        if (invocation.json) json(withoutMac(fact));
        else out(`kept ${fact.id} (${fact.scope})`);
        return 0;
      }
      case "rm": {
        const fact = await store.remove(needed(invocation.args[0], "rm"));
        if (invocation.json) json(withoutMac(fact));
        else out(`removed ${fact.id}`);
        return 0;
      }
      case "edit": {
        needed(invocation.args[0], "edit");
        const fact = await store.edit(invocation.args[0]!, needed(text || undefined, "edit"));
        if (invocation.json) json(withoutMac(fact));
        else out(`edited ${fact.id} (revision ${fact.revision})`);
        return 0;
      }
      case "review":
        return await review(store, invocation.json, env, out);
    }
  } catch (error) {
    if (error instanceof MemoryRefused) throw new HelError(error.message, 2);
    throw error;
  }
}

const USAGE = {
  show: "hel memory show <id>",
  add: "hel memory add [--user] <text>",
  rm: "hel memory rm <id>",
  edit: "hel memory edit <id> <text>",
} as const;

function needed(value: string | undefined, action: keyof typeof USAGE): string {
  if (value === undefined || value.trim() === "") throw new HelError(`nothing to ${action} — ${USAGE[action]}`, 2);
  return value;
}

/** A fact as --json gives it: its fields, the MAC left on disk. */
function withoutMac({ mac: _, ...rest }: Fact): Omit<Fact, "mac"> {
  return rest;
}

/** A listed fact as --json gives it, with its state. */
function asJson({ fact, pending, planted }: Listed): Record<string, unknown> {
  return { ...withoutMac(fact), state: pending ? "pending" : planted ? "planted" : "kept" };
}

/** What waits for the user's word, asked one by one in a terminal; listed otherwise. */
async function review(store: MemoryStore, asJsonList: boolean, env: NodeJS.ProcessEnv, out: (lines: string[] | string) => void): Promise<number> {
  const waiting = [...(await store.pending()), ...(await store.facts()).filter((l) => l.planted)];
  if (asJsonList) {
    out(JSON.stringify(waiting.map(asJson)));
    return 0;
  }
  if (waiting.length === 0) {
    out("nothing waits for review");
    return 0;
  }
  if (!process.stdin.isTTY) {
    out([...formatFactList(waiting), "answer them in a terminal: hel memory review"]);
    return 0;
  }
  const { openTerminalPrompt } = await import("./term/kit/terminal-prompt.js");
  const closed = new AbortController();
  const prompt = openTerminalPrompt({
    input: process.stdin,
    output: process.stderr,
    history: [],
    complete: async () => ({ completions: [], on: "" }),
    onLine: () => undefined,
    onTyping: () => undefined,
    onInterrupt: () => closed.abort(),
    onClose: () => closed.abort(),
  });
  const style = styleFor(process.stderr, env);
  const ask: ReviewAsk = {
    say: (lines) => process.stderr.write(`${lines.join("\n")}\n`),
    key: (question, keys) => prompt.askKey(question, keys, closed.signal),
    line: (question) => prompt.ask(question),
    style,
  };
  try {
    const done = await reviewFacts(
      store,
      waiting.map((l) => l.fact),
      ask,
    );
    process.stderr.write(`kept ${done.kept}, dropped ${done.dropped}${done.left > 0 ? `, ${done.left} left for the next review` : ""}\n`);
  } finally {
    prompt.close();
  }
  return 0;
}
