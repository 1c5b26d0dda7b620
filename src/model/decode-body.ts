// Decodes a compressed answer body (Content-Encoding gzip, deflate or br; a list is undone last
// coding first). Loaded only when an answer is compressed, so a run never pays for node:zlib
// otherwise. An error on the raw body (a timeout, a reset) comes out of the decoded one unchanged.
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

export function decodeBody(body: Readable, contentEncoding: string): Readable {
  const codings = contentEncoding
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding && coding !== "identity")
    .reverse();
  const decoders = codings.map((coding) => {
    const make = DECODERS[coding];
    if (!make) {
      // Destroying undici's body aborts the request, which it reports as an error: expected here.
      body.once("error", () => undefined).destroy();
      throw new Error(`the answer is encoded with ${coding}, which hel cannot decode`);
    }
    return make();
  });
  if (decoders.length === 0) return body;
  // pipeline destroys every stage with the first error, so the last one reports it to the reader.
  pipeline([body, ...decoders], () => undefined);
  return decoders.at(-1) as unknown as Readable;
}
