import { readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { writeAll, writeFileAtomic } from "../../src/fs/atomic-write.js";
import { tempProject } from "../helpers/temp-project.js";

let dir: string;
beforeEach(async () => {
  dir = await tempProject();
});

const pieces = [Buffer.from("header,"), Buffer.alloc(0), Buffer.from("a long middle piece,"), Buffer.from("x"), Buffer.from("the end\n")];

describe("writeFileAtomic", () => {
  it("writes pieces one after another, as one file", async () => {
    const file = join(dir, "f.json");
    await writeFileAtomic(file, pieces);
    expect(readFileSync(file).equals(Buffer.concat(pieces))).toBe(true);
  });

  it("goes on after a short count, inside a piece or at its end, until every byte is written", async () => {
    const file = join(dir, "short");
    const handle = await open(file, "w");
    // A kernel that takes at most 4 bytes per call.
    const real = handle.writev.bind(handle);
    let calls = 0;
    handle.writev = (async (buffers: Uint8Array[], position?: number) => {
      calls++;
      let room = 4;
      const taken: Uint8Array[] = [];
      for (const b of buffers) {
        if (room === 0) break;
        taken.push(b.subarray(0, room));
        room -= Math.min(room, b.byteLength);
      }
      return real(taken, position);
    }) as typeof handle.writev;
    await writeAll(handle, pieces);
    await handle.close();
    expect(readFileSync(file).equals(Buffer.concat(pieces))).toBe(true);
    expect(calls).toBe(Math.ceil(Buffer.concat(pieces).byteLength / 4));
  });

  it("a call that writes nothing is a short write, not a loop", async () => {
    const handle = await open(join(dir, "stuck"), "w");
    handle.writev = (async () => ({ bytesWritten: 0, buffers: [] })) as unknown as typeof handle.writev;
    await expect(writeAll(handle, pieces)).rejects.toMatchObject({ code: "ESHORTWRITE" });
    await handle.close();
  });
});
