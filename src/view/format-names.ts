// The names of the formats `hel sessions export` writes (export-formats.ts renders them), apart from
// their renderers so that the command line can check a name without loading them.
export const EXPORT_FORMATS = ["html", "md", "json", "atif"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
