// hel end to end as a child process, the simulator over real HTTP, a real project directory: an
// instruction of many requests leaves Node nothing to warn about, and the API key in the process's
// environment reaches only the Authorization header, never the model or the disk. The rest of a run's
// wiring is asserted in this process, in test/cli/run.test.ts.
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../sim/index.js";
import type { ChatRequest } from "../../src/wire/messages.js";
import { runHel } from "../helpers/hel.js";
import { tempProject } from "../helpers/temp-project.js";

let sim: Simulator;
afterEach(async () => sim?.close());

const bodies = () => sim.requests.map((r) => r.body as ChatRequest);
const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });

describe("the loop's limits and the model's mistakes", () => {
  it("an instruction of many requests leaves Node nothing to warn about", async () => {
    const reads = Array.from({ length: 13 }, () => ({ tool_calls: [call("read_file", { path: "a.txt" })] }));
    sim = await startSimulator({ script: [...reads, { content: "read it 13 times" }] });
    const project = await tempProject();
    await writeFile(join(project, "a.txt"), "a\n");
    const result = await runHel({ args: ["-C", project, "read a.txt 13 times"], baseUrl: sim.url });
    expect(result.code).toBe(0);
    expect(sim.requests).toHaveLength(14);
    expect(result.stderr).not.toMatch(/Warning|listeners/);
  });
});

describe("the API key", () => {
  it("is never shown to the model, even when a project file holds it, and never written to disk", async () => {
    const key = "sk-0123456789abcdef0123456789abcdef";
    sim = await startSimulator({ script: [{ tool_calls: [call("read_file", { path: ".env" })] }, { content: "read it" }] });
    const project = await tempProject();
    await writeFile(join(project, ".env"), `DEEPSEEK_API_KEY=${key}\nOTHER=1\n`);
    await writeFile(join(project, "HEL.md"), `Never print ${key}.\n`);
    const out = await tempProject();
    const result = await runHel({ args: ["-C", project, "--record", out, "show .env"], baseUrl: sim.url, env: { DEEPSEEK_API_KEY: key } });
    expect(result.code).toBe(0);
    const toolResult = bodies()[1]!.messages.at(-1)!.content!;
    expect(toolResult).toContain("DEEPSEEK_API_KEY=[REDACTED]");
    expect(toolResult).toContain("OTHER=1");
    expect(JSON.stringify(bodies())).not.toContain(key);
    expect(bodies()[0]!.messages[0]!.content).toContain("Never print [REDACTED].");
    // The key goes out only in the Authorization header.
    expect(sim.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    const written = [...(await readdir(join(project, ".hel"), { recursive: true })).map((f) => join(project, ".hel", f)), ...(await readdir(out, { recursive: true })).map((f) => join(out, f))];
    for (const file of written) {
      const text = await readFile(file, "utf8").catch(() => "");
      expect(text, file).not.toContain(key);
    }
    expect(written.some((f) => f.endsWith("snapshot.json"))).toBe(true);
  });
});
