// One of highlight.js's grammars (highlight.js/lib/languages/<name>), typed without highlight.js's own
// declarations (see highlight.js.d.ts beside this file).
import type { LanguageFn } from "./highlight.js.js";
declare const grammar: LanguageFn;
export default grammar;
