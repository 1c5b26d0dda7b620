import { spawn } from "node:child_process";
import { chownSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { ensureStateDir, macMatches, macOf, userKey, userStateDir } from "../../src/fs/state-dir.js";
import { tempProject } from "../helpers/temp-project.js";

const COMPILED = pathToFileURL(resolve(import.meta.dirname, "../../out/src/fs/state-dir.js")).href;

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  home = await tempProject();
  env = { HOME: home };
});

describe("the state folder", () => {
  it("is $XDG_STATE_HOME/hel, else ~/.local/state/hel", () => {
    expect(userStateDir({ HOME: "/h" })).toBe("/h/.local/state/hel");
    expect(userStateDir({ HOME: "/h", XDG_STATE_HOME: "/s" })).toBe("/s/hel");
  });

  it("is made mode 700, and a looser one is tightened", async () => {
    const dir = await ensureStateDir(env);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    await import("node:fs/promises").then((fs) => fs.chmod(dir, 0o755));
    await ensureStateDir(env);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
  });

  it("is refused when it is a link, and nothing is made where the link points", async () => {
    const elsewhere = join(home, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(join(home, ".local/state"), { recursive: true });
    symlinkSync(elsewhere, join(home, ".local/state/hel"));
    await expect(ensureStateDir(env)).rejects.toThrow(/is not a directory/);
    await expect(userKey(env)).rejects.toThrow(/is not a directory/);
    expect(() => lstatSync(join(elsewhere, "key"))).toThrow();
  });

  it("is refused when another user owns it (as root, CI's user)", async () => {
    mkdirSync(join(home, ".local/state/hel"), { recursive: true, mode: 0o700 });
    chownSync(join(home, ".local/state/hel"), 65534, 65534);
    await expect(ensureStateDir(env)).rejects.toThrow(/belongs to another user/);
  });
});

describe("the per-user key", () => {
  it("is 32 random bytes, mode 600, the same on every call", async () => {
    const key = await userKey(env);
    expect(key.length).toBe(32);
    const file = join(userStateDir(env), "key");
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect((await userKey(env)).equals(key)).toBe(true);
    expect(readFileSync(file).equals(key)).toBe(true);
  });

  it("made by eight processes at once is one key they all agree on", async () => {
    const script = `const { userKey } = await import(${JSON.stringify(COMPILED)}); process.stdout.write((await userKey(process.env)).toString("hex"));`;
    const keys = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<string>((done, fail) => {
            const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, XDG_STATE_HOME: "", HOME: home } });
            let out = "";
            child.stdout.on("data", (d: Buffer) => (out += d.toString()));
            child.on("close", (code) => (code === 0 ? done(out) : fail(new Error(`exit ${code}`))));
          }),
      ),
    );
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe((await userKey(env)).toString("hex"));
  });

  it("a file of another size is not taken for a key", async () => {
    mkdirSync(userStateDir(env), { recursive: true });
    await import("node:fs/promises").then((fs) => fs.writeFile(join(userStateDir(env), "key"), "short"));
    await expect(userKey(env)).rejects.toThrow(/not a key hel made/);
  });

  it("MACs verify only the same data under the same key", async () => {
    const key = await userKey(env);
    const mac = macOf(key, "snapshot bytes");
    expect(macMatches(key, "snapshot bytes", mac)).toBe(true);
    expect(macMatches(key, "snapshot bytes!", mac)).toBe(false);
    expect(macMatches(Buffer.alloc(32), "snapshot bytes", mac)).toBe(false);
    expect(macMatches(key, "snapshot bytes", "zz")).toBe(false);
  });
});
