// The price table the cost estimates use: the built-in one, or the JSON file `HEL_PRICES` names,
// checked with the table's schema. A file that cannot be read or is not a valid table is a usage
// error, named in one line.
import { HelError, oneLine } from "../errors.js";
import { FileRefused, readProblem, readRegularFile } from "../fs/regular-file.js";
import { DEFAULT_PRICES, PriceTableSchema, type PriceTable } from "../model/prices.js";

/** A price table names a few models: anything near this size is not one. */
const MAX_TABLE_BYTES = 1024 * 1024;

export async function loadPriceTable(env: NodeJS.ProcessEnv): Promise<PriceTable> {
  const file = env.HEL_PRICES;
  if (!file) return DEFAULT_PRICES;
  const fix = "fix the file (the README shows the format) or unset HEL_PRICES";
  let text: string;
  try {
    text = await readRegularFile(file, MAX_TABLE_BYTES);
  } catch (error) {
    const why = error instanceof FileRefused || (error as NodeJS.ErrnoException).code === "ELOOP" ? readProblem(error) : `is not a readable JSON file (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    throw new HelError(`HEL_PRICES: ${file} ${why} — ${fix}`, 2);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HelError(`HEL_PRICES: ${file} is not a readable JSON file (${oneLine(error instanceof Error ? error.message : String(error))}) — ${fix}`, 2);
  }
  const parsed = PriceTableSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join(".") : "the table";
  throw new HelError(`HEL_PRICES: ${file}: ${where}: ${oneLine(issue.message)} — ${fix}`, 2);
}
