// The part of highlight.js's types hel uses: a grammar is a function lowlight registers. highlight.js's
// own declarations reference the DOM library, which would retype Node's globals (fetch, Headers) in
// the whole program; tsconfig.json's `paths` sends "highlight.js" here instead.
export type LanguageFn = (hljs: unknown) => unknown;
declare const hljs: unknown;
export default hljs;
