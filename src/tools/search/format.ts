// How grep and find_files end their results: the last line is a tally in brackets, "[<count>]" or
// "[<count>; <notes, how to go on>]", so the model sees at once what a page holds and how to go on.

/** Matching lines in one grep page. */
export const GREP_PAGE_LINES = 100;
/** Paths in one grep files_only page, and in a find_files result. */
export const PATHS_PER_PAGE = 100;
/** Bytes of lines or paths in one page: well under the spill limit, so pages are never spilled. */
export const PAGE_BYTES = 16 * 1024;

export function tally(count: string, ...notes: string[]): string {
  return `[${[count, ...notes].join("; ")}]`;
}
