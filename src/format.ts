// Numbers as hel writes them, for the model (tool results) and for people (the terminal, transcripts).
// Sizes are short and approximate, since they only guide the next call (how much is left, how big a
// file is).
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** "1 file", "1,234 files". */
export function count(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${groupDigits(n)} ${n === 1 ? singular : pluralForm}`;
}

/**
 * An integer with thousands separators ("12,345"), as toLocaleString("en-US") writes it. Not that
 * call: its first use starts ICU's number formatting, whose time and memory at start-up buy one comma.
 */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
