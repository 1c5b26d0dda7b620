// hel's Headers class, checked against the WHATWG Headers that Node ships (the class it stands in
// for in the SDK): the same operations must leave the same observable state.
import { describe, expect, it } from "vitest";
import { HttpHeaders } from "../../src/model/http-headers.js";

type Op = ["append" | "set", string, string] | ["delete", string];

function apply(headers: { append(n: string, v: string): void; set(n: string, v: string): void; delete(n: string): void }, ops: Op[]): void {
  for (const op of ops) {
    if (op[0] === "delete") headers.delete(op[1]);
    else headers[op[0]](op[1], op[2]);
  }
}

describe("HttpHeaders", () => {
  it("behaves as WHATWG Headers: case-insensitive names, appended values joined, name order", () => {
    const ops: Op[] = [
      ["append", "X-Stainless-Lang", "js"],
      ["append", "Accept", "application/json"],
      ["append", "accept", "text/event-stream"],
      ["set", "Content-Type", "  application/json\t"],
      ["append", "Authorization", "Bearer k"],
      ["delete", "AUTHORIZATION"],
      ["set", "x-stainless-lang", "ts"],
    ];
    const ours = new HttpHeaders();
    const whatwg = new Headers();
    apply(ours, ops);
    apply(whatwg, ops);
    expect([...ours]).toEqual([...whatwg]);
    expect([...ours.keys()]).toEqual([...whatwg.keys()]);
    expect([...ours.values()]).toEqual([...whatwg.values()]);
    for (const name of ["accept", "ACCEPT", "content-type", "authorization", "missing"]) {
      expect(ours.get(name)).toBe(whatwg.get(name));
      expect(ours.has(name)).toBe(whatwg.has(name));
    }
    const seen: string[] = [];
    ours.forEach((value, name, self) => {
      expect(self).toBe(ours);
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(["accept=application/json, text/event-stream", "content-type=application/json", "x-stainless-lang=ts"]);
  });

  it("takes a record (with lists, as undici gives response headers), pairs, or another instance", () => {
    const fromRecord = new HttpHeaders({ "Set-Cookie": ["a=1", "b=2"], "retry-after": "3", skipped: undefined });
    expect([...fromRecord]).toEqual([
      ["retry-after", "3"],
      ["set-cookie", "a=1, b=2"],
    ]);
    expect(fromRecord.get("RETRY-AFTER")).toBe("3");
    expect([
      ...new HttpHeaders([
        ["A", "1"],
        ["a", "2"],
      ]),
    ]).toEqual([["a", "1, 2"]]);
    expect([...new HttpHeaders(fromRecord)]).toEqual([...fromRecord]);
  });

  it("refuses what WHATWG Headers refuses: a name that is no token, a value with CR, LF or NUL", () => {
    for (const [name, value] of [
      ["bad name", "v"],
      ["", "v"],
      ["x", "a\r\nInjected: 1"],
      ["x", "a\0b"],
    ] as const) {
      expect(() => new Headers([[name, value]])).toThrow(TypeError);
      expect(() => new HttpHeaders([[name, value]])).toThrow(TypeError);
    }
  });
});
