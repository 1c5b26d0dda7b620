// File names that are not valid UTF-8, made visible: each byte that is not part of a UTF-8 character is
// shown as \xNN (the form bash's $'…' quoting reads back), the rest as text. Node lists such a name
// with U+FFFD in place of those bytes, a name no file has, so a directory whose listing holds U+FFFD is
// listed again as bytes and its entries carry their real names for opening.
import path from "node:path";

const strict = new TextDecoder("utf-8", { fatal: true });

/** A path to open: text, or bytes once a name on it is not UTF-8. */
export type WalkPath = string | Buffer;

export function shownName(raw: Buffer): string {
  let out = "";
  for (let i = 0; i < raw.length; ) {
    const length = sequenceLength(raw[i]!);
    const char = length === 0 ? null : decoded(raw.subarray(i, i + length));
    if (char === null) {
      out += `\\x${raw[i]!.toString(16).padStart(2, "0")}`;
      i++;
    } else {
      out += char;
      i += length;
    }
  }
  return out;
}

/** Whether a name as Node listed it may stand for bytes that are not UTF-8. */
export function mayBeUndecodable(name: string): boolean {
  return name.includes("\uFFFD");
}

export function joinWalkPath(dir: WalkPath, name: WalkPath): WalkPath {
  if (typeof dir === "string" && typeof name === "string") return `${dir}${path.sep}${name}`;
  return Buffer.concat([Buffer.from(dir), Buffer.from(path.sep), Buffer.from(name)]);
}

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function decoded(bytes: Buffer): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}
