// The answer stream's event reader: the same events however the bytes are cut, and work linear in
// the stream's size, measured as the bytes it searches for line breaks and the bytes it copies.
import { describe, expect, it } from "vitest";
import { SseDecoder } from "../../src/model/sse-decoder.js";
import { measureBufferWork } from "../helpers/buffer-work.js";

/** All events of `stream` pushed in the given pieces. */
function decode(pieces: readonly Uint8Array[]): string[] {
  const decoder = new SseDecoder();
  return pieces.flatMap((piece) => decoder.push(piece));
}

describe("events", () => {
  const stream = Buffer.from(": keep-alive\n\n" + 'data: {"a":1}\n\n' + "event: ignored\r\nid: 7\r\ndata: two\r\ndata:lines\r\n\r\n" + "data: é€😀\r\rdata\n\n" + "retry: 5\n\n" + "data: [DONE]\n\n" + "data: cut off");
  const events = ['{"a":1}', "two\nlines", "é€😀", "", "[DONE]"];

  it("reads data lines, skips comments and other fields, and ends lines with LF, CRLF or CR", () => {
    expect(decode([stream])).toEqual(events);
  });

  it("gives the same events wherever the stream is cut in two or three, inside a CRLF or a character too", () => {
    for (let i = 0; i <= stream.length; i++) {
      expect(decode([stream.subarray(0, i), stream.subarray(i)]), `cut at ${i}`).toEqual(events);
      for (let j = i; j <= stream.length; j += 7) {
        expect(decode([stream.subarray(0, i), stream.subarray(i, j), stream.subarray(j)]), `cut at ${i}, ${j}`).toEqual(events);
      }
    }
  });

  it("gives the same events a byte at a time, and with empty chunks between a CR and its LF", () => {
    const bytes = [...stream].map((b) => Uint8Array.of(b));
    expect(decode(bytes)).toEqual(events);
    expect(decode(bytes.flatMap((b) => [b, new Uint8Array(0)]))).toEqual(events);
  });
});

describe("work", () => {
  it("one event of 16 MB in 1 KB chunks: each byte searched at most twice (LF, CR) and copied once", async () => {
    const payload = `{"arguments":"${"x".repeat(16 * 1024 * 1024)}"}`;
    const stream = Buffer.from(`data: ${payload}\n\ndata: [DONE]\n\n`);
    const chunks: Buffer[] = [];
    for (let at = 0; at < stream.length; at += 1024) chunks.push(stream.subarray(at, at + 1024));
    const { result: events, work } = await measureBufferWork(() => decode(chunks));
    expect(events).toHaveLength(2);
    expect(events[0] === payload).toBe(true);
    expect(events[1]).toBe("[DONE]");
    // Searched: every byte once for LF and once for CR, plus the few bytes before each line's colon.
    expect(work.searched).toBeGreaterThanOrEqual(stream.length);
    expect(work.searched).toBeLessThanOrEqual(2 * stream.length + 64);
    // Copied: only the one line that spans chunks, once.
    expect(work.concats).toBe(1);
    expect(work.copied).toBe(`data: ${payload}`.length);
  });

  it("many small events in large chunks: a chunk is not searched again for each of its lines", async () => {
    const stream = Buffer.from('data: {"content":"a"}\n\n'.repeat(20_000));
    const chunks: Buffer[] = [];
    for (let at = 0; at < stream.length; at += 64 * 1024) chunks.push(stream.subarray(at, at + 64 * 1024));
    const { result: events, work } = await measureBufferWork(() => decode(chunks));
    expect(events).toHaveLength(20_000);
    expect(work.searched).toBeLessThanOrEqual(2 * stream.length + 20_000 * 8);
    // Only lines that a chunk boundary cuts are copied.
    expect(work.concats).toBeLessThanOrEqual(chunks.length);
  });
});
