// What a command's output becomes before the model sees it: text cleaned per stream (escape codes,
// invalid UTF-8, line endings, all of them split across chunks anywhere), secrets masked even when a
// chunk boundary cuts one in two, and long output cut to head and tail around a note, with the whole
// of it, cleaned and redacted, in a spill file.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TextCleaner } from "../../../src/tools/command/clean-text.js";
import { HEAD_BYTES, KEEP_WHOLE_BYTES, OutputCapture, PROGRESS_BYTES, TAIL_BYTES } from "../../../src/tools/command/output.js";
import { SecretMasker } from "../../../src/redact.js";
import { toolProject } from "../../helpers/tools.js";

/** Feeds `bytes` to a cleaner cut at every position in turn, and checks each cut gives `expected`. */
function cleanAtEveryCut(bytes: Buffer, expected: string): void {
  for (let cut = 0; cut <= bytes.length; cut++) {
    const cleaner = new TextCleaner();
    const text = cleaner.push(bytes.subarray(0, cut)) + cleaner.push(bytes.subarray(cut)) + cleaner.end();
    expect({ cut, text }).toEqual({ cut, text: expected });
  }
}

describe("TextCleaner", () => {
  it("removes colour, cursor and title sequences, wherever a chunk boundary falls", () => {
    const raw = Buffer.from("\x1b[1;31merror\x1b[0m: x\x1b[2K\x1b[1A\x1b]0;title\x07done\x1b(B \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n");
    cleanAtEveryCut(raw, "error: xdone link\n");
  });

  it("makes CRLF and lone CR line breaks, wherever a chunk boundary falls", () => {
    cleanAtEveryCut(Buffer.from("a\r\nb\rc\r\n"), "a\nb\nc\n");
  });

  it("keeps characters split between chunks and replaces invalid UTF-8, a run of it by one U+FFFD", () => {
    cleanAtEveryCut(Buffer.concat([Buffer.from("é—😀 "), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from(" ok")]), "é—😀 \uFFFD ok");
    const cleaner = new TextCleaner();
    cleaner.push(Buffer.from([0x00, 0x41, 0x07, 0xff, 0xff, 0x42]));
    cleaner.end();
    expect(cleaner.nonText).toBe(4);
  });

  it("stops waiting for the end of an escape sequence once it is too long to be one", () => {
    const cleaner = new TextCleaner();
    expect(cleaner.push(Buffer.from(`\x1b]0;${"t".repeat(300)}`))).toBe(`0;${"t".repeat(300)}`);
    expect(cleaner.push(Buffer.from(" end\n")) + cleaner.end()).toBe(" end\n");
  });
});

describe("SecretMasker", () => {
  const KEY = "sk-0123456789abcdef";

  it("masks a secret cut in two at any point, and only holds back what could start one", () => {
    const text = `before ${KEY} after ${KEY}`;
    for (let cut = 0; cut <= text.length; cut++) {
      const masker = new SecretMasker([KEY]);
      const first = masker.push(text.slice(0, cut));
      expect(first).not.toContain("sk-0123");
      expect(first + masker.push(text.slice(cut)) + masker.end()).toBe("before [REDACTED] after [REDACTED]");
    }
    const masker = new SecretMasker([KEY]);
    expect(masker.push("plain text sk-01")).toBe("plain text ");
    expect(masker.push("x")).toBe("sk-01x");
  });

  it("passes text through untouched without secrets", () => {
    const masker = new SecretMasker([]);
    expect(masker.push("sk-0")).toBe("sk-0");
  });
});

describe("OutputCapture", () => {
  const noSpill = async () => {
    throw new Error("nothing should be spilled");
  };

  it("merges stdout and stderr in arrival order and keeps a short output whole", async () => {
    const seen: string[] = [];
    const capture = new OutputCapture({ openSpill: noSpill, onProgress: (text, skipped) => seen.push(`${skipped}:${text}`) });
    capture.write(Buffer.from("out 1\n"), 0);
    capture.write(Buffer.from("err 1\n"), 1);
    capture.write(Buffer.from("out 2"), 0);
    const out = await capture.finish();
    expect(out).toEqual({ head: "out 1\nerr 1\nout 2", omitted: null, spillPath: null, spillError: null, bytes: 17, lines: 3, nonText: 0 });
    // Progress comes at most every PROGRESS_MS; here all of it at the end.
    expect(seen).toEqual([`0:${out.head}`]);
  });

  it("reports progress as the end of what came since the last report, from a line start", async () => {
    const seen: [string, number][] = [];
    const capture = new OutputCapture({ openSpill: async () => "/dev/null", onProgress: (text, skipped) => seen.push([text, skipped]) });
    const lines = Array.from({ length: 1000 }, (_, i) => `progress line ${i + 1}\n`);
    capture.write(Buffer.from(lines.slice(0, 999).join("")), 0);
    capture.write(Buffer.from("é".repeat(10)), 1);
    await capture.drained();
    await capture.finish();
    expect(seen).toHaveLength(1);
    const [text, skipped] = seen[0]!;
    const all = lines.slice(0, 999).join("") + "é".repeat(10);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(PROGRESS_BYTES);
    expect(text.startsWith("progress line ")).toBe(true);
    expect(all.endsWith(text)).toBe(true);
    expect(skipped).toBe(Buffer.byteLength(all) - Buffer.byteLength(text));
  });

  it("keeps the head and tail of a long output, and writes the whole of it, redacted, to the spill file", async () => {
    const { ctx } = await toolProject();
    const KEY = "sk-the-api-key-0000";
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${i === 2500 ? KEY : "x".repeat(i % 50)}\n`);
    const all = lines.join("");
    const file = path.join(ctx.projectDir, "whole.txt");
    const capture = new OutputCapture({ secrets: [KEY], openSpill: async () => file });
    // Odd chunk sizes, so the key is cut in two somewhere.
    for (let i = 0; i < all.length; i += 4093) {
      if (!capture.write(Buffer.from(all.slice(i, i + 4093)), 0)) await capture.drained();
    }
    const out = await capture.finish();
    const redacted = all.replace(KEY, "[REDACTED]");
    expect(await readFile(file, "utf8")).toBe(redacted);
    expect(out.spillPath).toBe(file);
    expect(out.bytes).toBe(Buffer.byteLength(redacted));
    expect(out.lines).toBe(5000);

    const headLines = out.head.split("\n").slice(0, -1);
    expect(Buffer.byteLength(out.head)).toBeLessThanOrEqual(HEAD_BYTES);
    expect(out.head).toBe(lines.slice(0, headLines.length).join(""));
    const omitted = out.omitted!;
    expect(Buffer.byteLength(omitted.tail)).toBeLessThanOrEqual(TAIL_BYTES);
    const tailLines = omitted.tail.split("\n").slice(0, -1).length;
    expect(omitted.tail).toBe(lines.slice(5000 - tailLines).join(""));
    expect(omitted.firstLine).toBe(headLines.length + 1);
    expect(omitted.lines).toBe(5000 - headLines.length - tailLines);
    expect(omitted.bytes).toBe(Buffer.byteLength(redacted) - Buffer.byteLength(out.head) - Buffer.byteLength(omitted.tail));
  });

  it("keeps the ends of one huge line, marked as cut", async () => {
    const { ctx } = await toolProject();
    const capture = new OutputCapture({ openSpill: async () => path.join(ctx.projectDir, "line.txt") });
    capture.write(Buffer.from("a".repeat(KEEP_WHOLE_BYTES) + "b".repeat(KEEP_WHOLE_BYTES)), 0);
    await capture.drained();
    const out = await capture.finish();
    expect(out.head).toBe(`${"a".repeat(HEAD_BYTES)} …\n`);
    expect(out.omitted!.tail).toBe(`… ${"b".repeat(TAIL_BYTES)}`);
    expect(out.omitted!.bytes).toBe(2 * KEEP_WHOLE_BYTES - HEAD_BYTES - TAIL_BYTES);
  });

  it("says why the whole output could not be saved, and still keeps head and tail", async () => {
    const capture = new OutputCapture({ openSpill: async () => "/nonexistent-dir/out.txt" });
    capture.write(Buffer.from("y\n".repeat(KEEP_WHOLE_BYTES)), 0);
    await capture.drained();
    const out = await capture.finish();
    expect(out.spillPath).toBeNull();
    expect(out.spillError).toMatch(/ENOENT/);
    expect(out.head.startsWith("y\ny\n")).toBe(true);
    expect(out.omitted!.tail.endsWith("y\n")).toBe(true);
  });
});
