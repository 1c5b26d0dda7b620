// Windows-1252, the encoding a text file that is not UTF-8 is taken to be (it is Latin-1 with
// printable characters where Latin-1 has C1 controls, as browsers read "latin1"). Decoded and
// encoded here, byte for byte, so reading and editing such files loads no ICU. Every byte decodes to
// one character and that character encodes back to the same byte, so an edit changes only what it
// replaces; the five bytes Windows-1252 leaves undefined stand for the C1 control of the same value.

export const WINDOWS_1252 = "Windows-1252";

// The characters of bytes 0x80-0x9F; the rest of the bytes are the code point of the same value.
const HIGH = "€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ";
const ENCODE_HIGH = new Map<number, number>([...HIGH].map((char, i) => [char.codePointAt(0)!, 0x80 + i]));

export function decodeWindows1252(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += byte >= 0x80 && byte < 0xa0 ? HIGH[byte - 0x80] : String.fromCharCode(byte);
  return text;
}

/** The bytes of `text`, or the first character Windows-1252 cannot hold. */
export function encodeWindows1252(text: string): { bytes: Buffer } | { unencodable: string } {
  const bytes = Buffer.allocUnsafe(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte = code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : ENCODE_HIGH.get(code);
    if (byte === undefined) return { unencodable: String.fromCodePoint(text.codePointAt(i)!) };
    bytes[i] = byte;
  }
  return { bytes };
}
