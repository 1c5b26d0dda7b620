// The facts on disk: one file per fact, `<id>.json`, so that two processes adding at once each write a
// file of their own and nothing is lost; each written whole or not at all (fs/atomic-write.ts). Project
// facts live in `.hel/memory/`, its candidates (fold notes' parts waiting for the user's word) in
// `.hel/memory/pending/`, the user's facts in the user's hel folder (`memory/`). Edits and removals
// of one scope take a short lock (proper-lockfile), so two edits of a fact count its revisions right.
// A project's `.hel/` is writable by a clone and by the project's commands: a project fact is signed
// with the user's key (fact.ts `mac`), and one that is not (planted) is listed but never recalled until
// the user keeps it.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type ProperLockfile from "proper-lockfile";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { ensureHelDir, helDir } from "../fs/hel-dir.js";
import { ownDir } from "../fs/own-dir.js";
import { readRegularFile } from "../fs/regular-file.js";
import { macMatches, macOf, userKey } from "../fs/state-dir.js";
import { type Fact, type FactScope, FactSchema, factTextProblem, macData } from "./fact.js";

/** A fact as listed: `planted`, a project fact hel did not write for this user (no matching MAC). */
export interface Listed {
  fact: Fact;
  pending: boolean;
  planted: boolean;
}

/** A fact that may not be written: the one line says why and what to do. */
export class MemoryRefused extends Error {
  override name = "MemoryRefused";
}

export interface MemoryPlaces {
  /** The project's root, a real path. */
  projectDir: string;
  /** The user's facts folder (`<user hel folder>/memory`). */
  userDir: string;
  env: NodeJS.ProcessEnv;
  /** This run's secrets: a fact holding one is refused. */
  secrets: readonly string[];
  now?: () => Date;
}

const FACT_FILE = /^[0-9a-f]{8}\.json$/;
const MAX_FACT_BYTES = 8 * 1024;

let lockfile: typeof ProperLockfile | undefined;
const loadLockfile = async (): Promise<typeof ProperLockfile> => (lockfile ??= (await import("proper-lockfile")).default);

export class MemoryStore {
  private key: Buffer | undefined;
  constructor(private readonly places: MemoryPlaces) {}

  private get projectFolder(): string {
    return join(helDir(this.places.projectDir), "memory");
  }
  private get pendingFolder(): string {
    return join(this.projectFolder, "pending");
  }
  private folderOf(scope: FactScope, pending = false): string {
    return pending ? this.pendingFolder : scope === "project" ? this.projectFolder : this.places.userDir;
  }
  private now(): string {
    return (this.places.now?.() ?? new Date()).toISOString();
  }
  private async userKey(): Promise<Buffer> {
    return (this.key ??= await userKey(this.places.env));
  }

  /** Every kept fact of both scopes, oldest first. */
  async facts(): Promise<Listed[]> {
    const key = await this.userKey();
    const project = (await this.read(this.projectFolder)).map((fact) => ({ fact, pending: false, planted: !this.signedBy(key, fact) }));
    const user = (await this.read(this.places.userDir)).map((fact) => ({ fact, pending: false, planted: false }));
    return byCreation([...project, ...user]);
  }

  /** The facts recall may use: the user's, and the project's that hel wrote for this user. */
  async recallable(): Promise<Fact[]> {
    return (await this.facts()).filter((l) => !l.planted).map((l) => l.fact);
  }

  /** Candidates waiting for the user's word, oldest first. */
  async pending(): Promise<Listed[]> {
    return byCreation((await this.read(this.pendingFolder)).map((fact) => ({ fact, pending: true, planted: false })));
  }

  /** Writes a new fact; throws MemoryRefused when its text may not be kept. */
  add(scope: FactScope, text: string, source: string): Promise<Fact> {
    return this.create(scope, text, source, false);
  }

  /** Keeps a candidate for review; null when its text may not be kept (a secret, too long) or is already a fact or a candidate. */
  async propose(text: string, source: string): Promise<Fact | null> {
    if (factTextProblem(text, this.places.secrets) !== null) return null;
    const known = [...(await this.facts()), ...(await this.pending())].map((l) => l.fact.text);
    if (known.includes(text)) return null;
    return this.create("project", text, source, true);
  }

  /** A fact or candidate by its id or a unique start of it; throws MemoryRefused when none or several match. */
  async find(id: string): Promise<Listed> {
    const all = [...(await this.facts()), ...(await this.pending())];
    const found = all.filter((l) => l.fact.id.startsWith(id.toLowerCase()));
    if (found.length === 1) return found[0]!;
    throw new MemoryRefused(found.length === 0 ? `no fact has the id ${id} — hel memory ls lists them` : `${id} starts ${found.length} facts' ids — give more of it`);
  }

  /**
   * Keeps a candidate as a project fact (with `text`, when the user edited it), or signs a planted
   * project fact the user has read and wants recalled.
   */
  async keep(id: string, text?: string): Promise<Fact> {
    const { fact, pending } = await this.find(id);
    const problem = text === undefined ? null : factTextProblem(text, this.places.secrets);
    if (problem) throw new MemoryRefused(problem);
    return this.locked(fact.scope, async () => {
      const kept = { ...fact, text: text ?? fact.text, updated: this.now(), revision: pending ? 1 : fact.revision + 1 };
      await this.write(kept, false);
      if (pending) await unlink(join(this.pendingFolder, `${fact.id}.json`)).catch(() => undefined);
      return kept;
    });
  }

  /** Removes a fact or drops a candidate; returns what it was. */
  async remove(id: string): Promise<Fact> {
    const { fact, pending } = await this.find(id);
    await this.locked(fact.scope, () => unlink(join(this.folderOf(fact.scope, pending), `${fact.id}.json`)));
    return fact;
  }

  /** Rewrites a fact's (or a candidate's) text, one revision more. */
  async edit(id: string, text: string): Promise<Fact> {
    const problem = factTextProblem(text, this.places.secrets);
    if (problem) throw new MemoryRefused(problem);
    const { fact, pending } = await this.find(id);
    return this.locked(fact.scope, async () => {
      // Read again under the lock: another process may have edited it since.
      const current = (await this.read(this.folderOf(fact.scope, pending))).find((f) => f.id === fact.id) ?? fact;
      const edited = { ...current, text, updated: this.now(), revision: current.revision + 1 };
      await this.write(edited, pending);
      return edited;
    });
  }

  private async create(scope: FactScope, text: string, source: string, pending: boolean): Promise<Fact> {
    const problem = factTextProblem(text, this.places.secrets);
    if (problem) throw new MemoryRefused(problem);
    const at = this.now();
    const fact: Fact = { id: randomBytes(4).toString("hex"), scope, text, source, created: at, updated: at, revision: 1 };
    return this.write(fact, pending);
  }

  private async write(fact: Fact, pending: boolean): Promise<Fact> {
    const folder = await this.ensure(fact.scope, pending);
    const { mac: _old, ...bare } = fact;
    const signed = fact.scope === "project" && !pending ? { ...bare, mac: macOf(await this.userKey(), macData(this.places.projectDir, bare)) } : bare;
    await writeFileAtomic(join(folder, `${fact.id}.json`), Buffer.from(`${JSON.stringify(FactSchema.parse(signed), null, 2)}\n`));
    return signed;
  }

  private signedBy(key: Buffer, fact: Fact): boolean {
    return fact.mac !== undefined && macMatches(key, macData(this.places.projectDir, fact), fact.mac);
  }

  /** The folder of a scope, made when missing: under the project only through real directories. */
  private async ensure(scope: FactScope, pending: boolean): Promise<string> {
    const folder = this.folderOf(scope, pending);
    if (scope === "user" && !pending) await mkdir(folder, { recursive: true, mode: 0o700 });
    else {
      await ensureHelDir(this.places.projectDir);
      await ownDir(this.places.projectDir, folder, true);
    }
    return folder;
  }

  /** The facts in `folder`; a file that is not a fact (a link, bad JSON, a planted name) is passed over. */
  private async read(folder: string): Promise<Fact[]> {
    if (folder !== this.places.userDir && !(await ownDir(this.places.projectDir, folder, false).catch(() => false))) return [];
    const names = await readdir(folder).catch(() => [] as string[]);
    const facts: Fact[] = [];
    for (const name of names.filter((n) => FACT_FILE.test(n)).sort()) {
      const text = await readRegularFile(join(folder, name), MAX_FACT_BYTES, false).catch(() => null);
      const parsed = text === null ? null : FactSchema.safeParse(parseJson(text));
      if (parsed?.success && `${parsed.data.id}.json` === name) facts.push(parsed.data);
    }
    return facts;
  }

  private async locked<T>(scope: FactScope, work: () => Promise<T>): Promise<T> {
    const folder = await this.ensure(scope, false);
    const release = await (await loadLockfile()).lock(folder, { lockfilePath: join(folder, ".lock"), retries: { retries: 20, minTimeout: 20, maxTimeout: 200 } });
    try {
      return await work();
    } finally {
      await release();
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const byCreation = (listed: Listed[]): Listed[] => listed.sort((a, b) => a.fact.created.localeCompare(b.fact.created) || a.fact.id.localeCompare(b.fact.id));
