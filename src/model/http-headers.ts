// The `Headers` class the openai SDK builds requests with and reads responses through, in hel's
// bundle (rolldown injects it for the SDK's global `Headers`). The WHATWG semantics the SDK relies
// on: names case-insensitive, values of one name joined with ", ", iteration in name order, and
// invalid names or values refused with a TypeError. undici's own class is tied to its fetch, which
// hel does not load (model/dispatcher-fetch.ts), and Node's global one loads Node's second copy of
// undici at start-up.

// RFC 9110 token characters; a value may not contain NUL, CR or LF.
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\r\n]/;
// Leading and trailing HTTP whitespace is not part of a value.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

export type HeadersInit = HttpHeaders | Iterable<readonly [string, string]> | Record<string, string | readonly string[] | undefined>;

export class HttpHeaders {
  readonly #values = new Map<string, string>();

  constructor(init?: HeadersInit) {
    if (!init) return;
    if (init instanceof HttpHeaders || Symbol.iterator in init) {
      for (const [name, value] of init as Iterable<readonly [string, string]>) this.append(name, value);
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      for (const one of typeof value === "string" ? [value] : value) this.append(name, one);
    }
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const clean = checkedValue(name, value);
    const had = this.#values.get(key);
    this.#values.set(key, had === undefined ? clean : `${had}, ${clean}`);
  }

  set(name: string, value: string): void {
    this.#values.set(checkedName(name), checkedValue(name, value));
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  delete(name: string): void {
    this.#values.delete(checkedName(name));
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) yield [name, this.#values.get(name)!];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: HttpHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
  return name.toLowerCase();
}

function checkedValue(name: string, value: string): string {
  const clean = String(value).replace(EDGE_WHITESPACE, "");
  if (BAD_VALUE.test(clean)) throw new TypeError(`invalid value for header ${name}`);
  return clean;
}
