// The stdio reader of a server's answers: lines within the limit are messages as the SDK reads them; a
// longer line is dropped as it streams past, never held whole, and becomes an error response for the
// request it answered, found by its top-level id wherever the id sits (first, as Python servers write
// it, or last, as the SDK does) and whatever nested "id" its result holds.
import { describe, expect, it } from "vitest";
import { BoundedReadBuffer, TOO_LARGE } from "../../src/mcp/read-buffer.js";

const LIMIT = 1000;
const big = "x".repeat(2 * LIMIT);

/** Feeds `text` in chunks of `size` bytes and reads every message out. */
function read(text: string, size = 7) {
  const buffer = new BoundedReadBuffer(LIMIT);
  const bytes = Buffer.from(text);
  const out = [];
  for (let i = 0; i < bytes.length; i += size) {
    buffer.append(bytes.subarray(i, i + size));
    for (let m = buffer.readMessage(); m !== null; m = buffer.readMessage()) out.push(m);
  }
  return out;
}

const dropped = (id: string | number) => ({ jsonrpc: "2.0", id, error: { code: -32603, message: expect.stringContaining("more than the 0.00095367431640625 MB hel takes"), data: { [TOO_LARGE]: expect.any(Number) } } });

describe("BoundedReadBuffer", () => {
  it("reads lines within the limit as they are, across chunks and with \\r\\n", () => {
    const a = { jsonrpc: "2.0", id: 1, result: { text: "é ✓" } };
    const b = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
    expect(read(`${JSON.stringify(a)}\r\n${JSON.stringify(b)}\n`)).toEqual([a, b]);
  });

  it.each([
    ["the id last, after a result holding ids of its own", `{"result":{"id":7,"content":[{"id":"n","text":"${big}"}]},"jsonrpc":"2.0","id":42}`, 42],
    ["the id first", `{"jsonrpc":"2.0","id":"req-\\"9\\"","result":{"text":"${big}"}}`, 'req-"9"'],
    ["spaces around it", `{ "jsonrpc" : "2.0" , "result" : { "text" : "${big}\\\\" } , "id" : 5 }`, 5],
  ])("a longer line with %s becomes an error response for that id, and the next line is read", (_name, line, id) => {
    const next = { jsonrpc: "2.0", id: 43, result: {} };
    expect(read(`${line}\n${JSON.stringify(next)}\n`, 97)).toEqual([dropped(id), next]);
  });

  it("a longer line with no id (a notification) is only dropped", () => {
    expect(read(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${big}"}}\n{"jsonrpc":"2.0","id":1,"result":{}}\n`)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });
});
