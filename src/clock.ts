// Monotonic milliseconds, for durations hel reports (a model turn's, a record's). Not
// performance.now(): on Node 20 the first use of the `performance` global loads perf_hooks, a
// cost of every start-up paid before the first request.
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;
