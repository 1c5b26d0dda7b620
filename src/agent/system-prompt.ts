// The system prompt: who hel is, the environment, and the project's own rules. Built once per process
// from values passed in; the date has day precision so that a session resumed the same day sends a
// byte-identical prefix and keeps its prompt cache.
// Rules come from each folder from the project's root down to the folder hel was started in (HEL.md,
// else AGENTS.md, in each), the nearest last so it has the last word. A rules file goes into every
// request, so it follows the tools' path rules: inside the project (no symlink leading out, nothing
// in .hel/), a regular file (a FIFO would hang hel), of bounded size. Anything else is skipped with
// one warning, and the folder's next candidate is tried.
import { constants, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { formatSize } from "../format.js";
import { isMissing, PathError, withProjectEntry } from "../tools/paths.js";

export interface ProjectRules {
  file: string;
  text: string;
}

export interface PromptEnvironment {
  projectDir: string;
  /** The folder hel was started in, relative to the project directory ("" at its root). */
  here?: string;
  platform: string;
  date: string;
  /** Root first, nearest last. */
  rules: readonly ProjectRules[];
}

export function buildSystemPrompt(env: PromptEnvironment): string {
  const lines = [
    "You are hel, a coding agent working in the user's project from a terminal.",
    "Use the tools to look at files before you change them, and change only what the instruction asks for.",
    "Paths are relative to the project directory. When the work is done, answer briefly with what you did or found.",
    "",
    "# Environment",
    `Project directory: ${env.projectDir}`,
    ...(env.here ? [`Current folder: ${env.here} (where the user is working; paths stay relative to the project directory)`] : []),
    `Platform: ${env.platform}`,
    `Date: ${env.date}`,
  ];
  for (const rules of env.rules) {
    lines.push("", `# Project rules (${rules.file})`, rules.text.trimEnd());
  }
  return lines.join("\n");
}

const RULES_FILES = ["HEL.md", "AGENTS.md"];
/** More than this is not rules but a mistake (a log, a dump) that every request would carry. */
export const MAX_RULES_BYTES = 64 * 1024;

/** The rules of each folder from the root down to `here`, root first; `warn` gets a line for each file skipped. */
export async function loadProjectRules(projectDir: string, here: string, warn: (line: string) => void): Promise<ProjectRules[]> {
  const parts = here.split("/").filter(Boolean);
  const folders = parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
  const found: ProjectRules[] = [];
  for (const folder of ["", ...folders]) {
    const rules = await folderRules(projectDir, folder, warn);
    if (rules) found.push(rules);
  }
  return found;
}

/** The first rules file in `folder` ("" or ending in "/") that may be used. */
async function folderRules(projectDir: string, folder: string, warn: (line: string) => void): Promise<ProjectRules | null> {
  for (const name of RULES_FILES) {
    const file = `${folder}${name}`;
    let text: string | null;
    try {
      text = await readRules(projectDir, file);
    } catch (e) {
      warn(`${whySkipped(file, e)}, so it is not used as the project's rules — keep them in a regular file inside the project, up to ${formatSize(MAX_RULES_BYTES)}`);
      continue;
    }
    if (text !== null) return { file, text };
  }
  return null;
}

class RulesRefused extends Error {}

/** The file's text, or null when there is none; throws when it is there but may not be used. */
function readRules(projectDir: string, file: string): Promise<string | null> {
  return withProjectEntry({ projectDir }, file, "read", false, async ({ dir, name }) => {
    const st = await lstat(dir.entry(name)).catch((e: unknown) => {
      if (isMissing(e)) return null;
      throw e;
    });
    if (st === null) return null;
    // A symlink is opened as a file: the no-follow open refuses it as a change (it was not one when checked).
    if (!st.isFile() && !st.isSymbolicLink()) throw new RulesRefused(`${file} is ${kindOf(st)}, not a regular file`);
    const fh = await dir.open(name, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const opened = await fh.stat();
      if (!opened.isFile()) throw new RulesRefused(`${file} is ${kindOf(opened)}, not a regular file`);
      // Up to one byte past the bound, whatever the size said: the file may grow meanwhile.
      const buffer = Buffer.alloc(MAX_RULES_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await fh.read(buffer, length, buffer.length - length, length);
        length += bytesRead;
        if (bytesRead === 0 || length === buffer.length) break;
      }
      if (length > MAX_RULES_BYTES) throw new RulesRefused(`${file} is larger than ${formatSize(MAX_RULES_BYTES)}`);
      return buffer.toString("utf8", 0, length);
    } finally {
      await fh.close();
    }
  });
}

function whySkipped(file: string, e: unknown): string {
  if (e instanceof PathError) return e.problem;
  if (e instanceof RulesRefused) return e.message;
  const code = (e as NodeJS.ErrnoException).code;
  return `${file} cannot be read (${code ?? String(e)})`;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "a device";
}

export const isoDay = (now: Date): string => now.toISOString().slice(0, 10);
