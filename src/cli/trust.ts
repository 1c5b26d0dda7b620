// Project trust: a cloned repository, or a command the model ran, may have written the project's own
// settings to take the API key elsewhere or to loosen the sandbox. The settings that widen what hel
// does (the settings table's rows with `widens`: widening()) are taken from the project's files only
// when the user trusts the project: for one run with --trust, or for good by answering the terminal's
// question, which is kept in trusted.json as the project's real path and a hash of exactly those
// settings, so a changed setting asks again.
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
import type { Diagnostic } from "../diagnostics.js";
import { HelError } from "../errors.js";
import { configPaths, loadConfigFile, projectBudgets, userConfigDir, type ConfigFile } from "./config.js";
import { mergeHooks } from "../hooks/hook-config.js";
import type { RunOptions } from "./options.js";
import { programFiles } from "./trust-programs.js";
import { checkedServers, readFoundServers, type CheckedServers, type ServerEntry } from "../mcp/config.js";
import { configFileSchema, type ConfigFileSchema } from "../settings/config-schema.js";
import { inOrder, SETTINGS, type Setting, type SettingsTable } from "../settings/table.js";

/** A project setting that needs trust, and when: `user` is what the user's own config says. */
type Widening = Setting & Required<Pick<Setting, "widens">>;

/**
 * The settings that widen what hel does, in the order the question has always named them (which the
 * kept hash covers, so a trusted project is not asked again); a new one comes after these.
 */
export function widening(table: SettingsTable): Widening[] {
  return inOrder(
    table.filter((s): s is Widening => s.widens !== undefined),
    ["base-url", "access", "network", "hooks", "allow", "approval", "mcp-servers"],
  );
}

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
  /** Told each problem with the config files as it is found: a bad server entry, a budget raised, settings left out untrusted. */
  report: (diagnostic: Diagnostic) => void;
}

// What this process decided, so the conversations /new and /resume start do not ask again.
const decided = new Map<string, boolean>();

/** What the config files settle on: the merged config, which file gave each key, and the project's settings left out (`why`: not trusted, or above the user's budget). */
export interface Settled {
  config: ConfigFile;
  from: Record<string, "project" | "user">;
  ignored: { key: string; value: unknown; why: "not trusted" | "raises your limit" }[];
}

/** The user's config and the project's, merged (the project's wins), without what needs trust and lacks it. */
export async function trustedConfig(input: TrustInput): Promise<ConfigFile> {
  return (await settledConfig(input)).config;
}

/** trustedConfig, saying where each setting came from and what was left out; `table` is the settings table (a test's own). */
export async function settledConfig(input: TrustInput, table: SettingsTable = SETTINGS): Promise<Settled> {
  const paths = configPaths(input.projectDir, input.env);
  // A test's table has keys of its own: its files are checked against them.
  const schema = table === SETTINGS ? undefined : (configFileSchema(table) as unknown as typeof ConfigFileSchema);
  const user = await loadConfigFile(paths.user, schema);
  const read = await loadConfigFile(paths.project, schema);
  const project = projectBudgets(read, user, input.flags, paths.project, (problem) => input.report({ file: paths.project, problem }), table);
  const ignored: Settled["ignored"] = Object.keys(read)
    .filter((key) => !(key in project))
    .map((key) => ({ key, value: read[key as keyof ConfigFile], why: "raises your limit" as const }));
  // A bad server entry is left out and reported as the config file's other problems are.
  const shownAll = ({ servers, diagnostics }: CheckedServers) => {
    for (const d of diagnostics) input.report(d);
    return servers;
  };
  if (user["mcp-servers"]) user["mcp-servers"] = shownAll(checkedServers(user["mcp-servers"], paths.user));
  // The project's servers, from both of its files (its config's win): trusted, or not, together.
  const mcpJson = join(input.projectDir, ".mcp.json");
  const found = shownAll(await readFoundServers(mcpJson));
  const projectServers = { ...found, ...shownAll(checkedServers(project["mcp-servers"], paths.project)) };
  if (Object.keys(projectServers).length > 0) project["mcp-servers"] = projectServers;
  else delete project["mcp-servers"];
  const settled = (kept: ConfigFile): Settled => ({
    config: mergedConfig(user, kept),
    from: Object.fromEntries([...Object.keys(user).map((key) => [key, "user"] as const), ...Object.keys(kept).map((key) => [key, "project"] as const)]),
    ignored,
  });
  const values = project as Record<string, unknown>;
  // A flag or the environment wins over the project anyway: what it sets is not asked about.
  const asked = widening(table).filter(({ key, widens }) => values[key] !== undefined && (input.flags.origin as Record<string, unknown>)[key] === undefined && widens(values[key], user));
  if (asked.length === 0) return settled(project);
  const settings = asked.map(({ key }) => [key, values[key]] as const);
  // Only what was asked about, as it would run: in the project.
  const runs = mergedConfig({}, Object.fromEntries(asked.filter(({ key }) => key === "hooks" || key === "mcp-servers").map(({ key }) => [key, values[key]])));
  const programs = (await programFiles(input.projectDir, runs)).files;
  // Settings that run no file of the project hash as they always did: their trust stays.
  const hash = createHash("sha256")
    .update(JSON.stringify(programs.length > 0 ? [settings, programs] : settings))
    .digest("hex");
  const shownSettings = asked.map(({ key, label, shown: words }) => {
    const value = values[key];
    return [label ?? key, words ? words(value, shown) : value === true ? null : shown(Array.isArray(value) ? JSON.stringify(value) : String(value))] as const;
  });
  const verdict = await trustOf(input, shownSettings, hash);
  if (verdict === "trusted") return settled(project);
  const kept: Record<string, unknown> = { ...project };
  for (const { key } of asked) {
    ignored.push({ key, value: values[key], why: "not trusted" });
    delete kept[key];
  }
  const how = verdict === "declined" ? "answer y when asked, or pass --trust for one run" : "pass --trust to trust it for this run, or run hel in a terminal to be asked";
  // .mcp.json is named when its servers are among what was left out.
  const files = [...(asked.some((w) => w.key === "mcp-servers") && Object.keys(found).length > 0 ? [mcpJson] : []), paths.project];
  input.report({ file: files[0]!, problem: `ignored this project's ${asked.map((w) => w.key).join(", ")} (${files.join(", ")}): a project's own files may not widen what hel does until you trust it — ${how}` });
  return settled(kept as ConfigFile);
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
