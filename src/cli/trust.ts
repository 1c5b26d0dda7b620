// Project trust: a cloned repository, or a command the model ran, may have written the project's own
// settings to take the API key elsewhere or to loosen the sandbox. The settings that widen what hel
// does (WIDENING) are taken from the project's files only when the user trusts the project: for one
// run with --trust, or for good by answering the terminal's question, which is kept in trusted.json
// as the project's real path and a hash of exactly those settings, so a changed setting asks again.
// Without trust they are dropped with one warning line; every other project setting only narrows or
// tunes, and applies as it is. The user's hooks and a trusted project's both run (the user's first).
// The hash covers the programs too: the files inside the project that the project's hooks and servers
// would run (trust-programs.ts), so a command that rewrites one makes hel ask again.
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "../zod.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readProblem, readRegularFile } from "../fs/regular-file.js";
import { HelError } from "../errors.js";
import { ACCESS_LEVELS, type Access } from "../tools/types.js";
import { configPaths, loadConfigFile, projectBudgets, userConfigDir, type ConfigFile } from "./config.js";
import { mergeHooks, type HooksConfig } from "../hooks/hook-config.js";
import type { RunOptions } from "./options.js";
import { programFiles } from "./trust-programs.js";
import { checkedServers, readFoundServers, serverSummary, type CheckedServers, type ServerEntry, type ServerMap } from "../mcp/config.js";

/** A project setting that needs trust, and when: `user` is what the user's own config says. */
interface Widening {
  key: keyof ConfigFile;
  /** How the question names the setting, where its key is not what a person would call it. */
  label?: string;
  widens(value: unknown, user: ConfigFile): boolean;
  /** How the question names its value, where the value is not one word: each piece made fit for a terminal with `clean`. */
  shown?(value: unknown, clean: (text: string) => string): string;
}

const rank = (level: unknown) => ACCESS_LEVELS.indexOf(level as Access);

// One entry per setting.
const WIDENING: readonly Widening[] = [
  // Where the key is sent.
  { key: "base-url", widens: () => true },
  // Wider than what the user would otherwise run with: full, or edit over the user's read-only.
  { key: "access", widens: (value, user) => rank(value) > rank(user.access ?? "edit") },
  { key: "network", widens: (value) => value === true },
  // Programs that run outside the sandbox: each command is named in the question.
  {
    key: "hooks",
    widens: () => true,
    shown: (value, clean) =>
      Object.entries(value as HooksConfig)
        .flatMap(([event, hooks]) => (hooks ?? []).map((h) => `${event} ${clean(h.command)}`))
        .join("; "),
  },
  // Commands that would run outside the sandbox, unasked or once the model asks.
  { key: "allow", widens: (value) => Array.isArray(value) && value.length > 0 },
  { key: "approval", widens: (value, user) => value === "on-request" && user.approval !== "on-request" },
  // Programs to start and addresses to reach: the project's .mcp.json and its config's mcp-servers.
  { key: "mcp-servers", label: "MCP servers", widens: () => true, shown: (value, clean) => serverSummary(value as ServerMap, clean) },
];

const TrustedSchema = z.object({
  projects: z.array(z.object({ path: z.string(), hash: z.string(), trusted_at: z.string() })),
});
type Trusted = z.infer<typeof TrustedSchema>;

const MAX_TRUSTED_BYTES = 4 * 1024 * 1024;

export interface TrustInput {
  /** The project's root, a real path. */
  projectDir: string;
  flags: RunOptions;
  env: NodeJS.ProcessEnv;
  /** Asks the user the question and says whether they said yes; null where no one can be asked. */
  ask: ((question: string) => Promise<boolean>) | null;
  warn: (line: string) => void;
}

// What this process decided, so the conversations /new and /resume start do not ask again.
const decided = new Map<string, boolean>();

/** The user's config and the project's, merged (the project's wins), without what needs trust and lacks it. */
export async function trustedConfig(input: TrustInput): Promise<ConfigFile> {
  const paths = configPaths(input.projectDir, input.env);
  const user = await loadConfigFile(paths.user);
  const project = projectBudgets(await loadConfigFile(paths.project), user, input.flags, paths.project, input.warn);
  // A bad server entry is left out and shown as the config file's other problems are.
  const shownAll = ({ servers, diagnostics }: CheckedServers) => {
    for (const d of diagnostics) input.warn(d.problem);
    return servers;
  };
  if (user["mcp-servers"]) user["mcp-servers"] = shownAll(checkedServers(user["mcp-servers"], paths.user));
  // The project's servers, from both of its files (its config's win): trusted, or not, together.
  const mcpJson = join(input.projectDir, ".mcp.json");
  const found = shownAll(await readFoundServers(mcpJson));
  const projectServers = { ...found, ...shownAll(checkedServers(project["mcp-servers"], paths.project)) };
  if (Object.keys(projectServers).length > 0) project["mcp-servers"] = projectServers;
  else delete project["mcp-servers"];
  // A flag or the environment wins over the project anyway: what it sets is not asked about.
  const asked = WIDENING.filter(({ key, widens }) => project[key] !== undefined && setBy(input.flags, key) === undefined && widens(project[key], user));
  if (asked.length === 0) return mergedConfig(user, project);
  const settings = asked.map(({ key }) => [key, project[key]] as const);
  // Only what was asked about, as it would run: in the project.
  const runs = mergedConfig({}, Object.fromEntries(asked.filter(({ key }) => key === "hooks" || key === "mcp-servers").map(({ key }) => [key, project[key]])));
  const programs = (await programFiles(input.projectDir, runs)).files;
  // Settings that run no file of the project hash as they always did: their trust stays.
  const hash = createHash("sha256")
    .update(JSON.stringify(programs.length > 0 ? [settings, programs] : settings))
    .digest("hex");
  const shownSettings = asked.map(({ key, label, shown: words }) => {
    const value = project[key];
    return [label ?? key, words ? words(value, shown) : value === true ? null : shown(Array.isArray(value) ? JSON.stringify(value) : String(value))] as const;
  });
  const verdict = await trustOf(input, shownSettings, hash);
  if (verdict === "trusted") return mergedConfig(user, project);
  const kept: ConfigFile = { ...project };
  for (const { key } of asked) delete kept[key];
  const how = verdict === "declined" ? "answer y when asked, or pass --trust for one run" : "pass --trust to trust it for this run, or run hel in a terminal to be asked";
  // .mcp.json is named when its servers are among what was left out.
  const files = [...(asked.some((w) => w.key === "mcp-servers") && Object.keys(found).length > 0 ? [mcpJson] : []), paths.project];
  input.warn(`ignored this project's ${asked.map((w) => w.key).join(", ")} (${files.join(", ")}): a project's own files may not widen what hel does until you trust it — ${how}`);
  return mergedConfig(user, kept);
}

/**
 * The project's settings over the user's; hooks from both, allow rules add up (the user's own stay),
 * and MCP servers by name, the project's winning.
 */
function mergedConfig(user: ConfigFile, project: ConfigFile): ConfigFile {
  const hooks = mergeHooks(user.hooks, project.hooks);
  const allow = [...(user.allow ?? []), ...(project.allow ?? [])];
  const servers = { ...user["mcp-servers"], ...Object.fromEntries(Object.entries(project["mcp-servers"] ?? {}).map(([name, entry]) => [name, { ...(entry as ServerEntry), inProject: true as const }])) };
  return { ...user, ...project, ...(hooks ? { hooks } : {}), ...(allow.length > 0 ? { allow } : {}), ...(Object.keys(servers).length > 0 ? { "mcp-servers": servers } : {}) };
}

/** Whether a flag or the environment gave the setting; never, for a key that is not a flag. */
function setBy(flags: RunOptions, key: keyof ConfigFile): string | undefined {
  return key in flags.setBy ? flags.setBy[key as keyof RunOptions["setBy"]] : undefined;
}

async function trustOf(input: TrustInput, settings: readonly (readonly [string, string | null])[], hash: string): Promise<"trusted" | "declined" | "not asked"> {
  if (input.flags.trust) return "trusted";
  const file = join(userConfigDir(input.env), "trusted.json");
  const trusted = await loadTrusted(file);
  if (trusted.projects.some((p) => p.path === input.projectDir && p.hash === hash)) return "trusted";
  const key = `${input.projectDir}\0${hash}`;
  let yes = decided.get(key);
  if (yes === undefined) {
    if (input.ask === null) return "not asked";
    yes = await input.ask(`This project (${shown(input.projectDir)}) asks for: ${describeAsked(settings)}. Trust it? [y/N] `);
    decided.set(key, yes);
    if (yes) await saveTrusted(file, { projects: [...trusted.projects.filter((p) => p.path !== input.projectDir), { path: input.projectDir, hash, trusted_at: new Date().toISOString() }] });
  }
  return yes ? "trusted" : "declined";
}

/** "base-url https://…, access full, network": each setting with its value as shown (null: a switch turned on). */
function describeAsked(settings: readonly (readonly [string, string | null])[]): string {
  return settings.map(([key, value]) => (value === null ? key : `${key} ${value}`)).join(", ");
}

/** A value from a file, shown in the terminal: no control characters, and not endless. */
function shown(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

async function loadTrusted(file: string): Promise<Trusted> {
  let text: string;
  try {
    text = await readRegularFile(file, MAX_TRUSTED_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { projects: [] };
    throw new HelError(`${file} ${readProblem(e)} — fix it or remove it (hel will ask again which projects to trust)`, 2);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = TrustedSchema.safeParse(json);
  if (!parsed.success) throw new HelError(`${file} is not the list of trusted projects hel writes — fix it or remove it (hel will ask again which projects to trust)`, 2);
  return parsed.data;
}

async function saveTrusted(file: string, trusted: Trusted): Promise<void> {
  await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, Buffer.from(JSON.stringify(trusted, null, 2) + "\n"));
}
