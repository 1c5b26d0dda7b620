// The harness section: hel's own time per model turn at three history sizes, tools excluded.
import { measureHarness, type HarnessSize } from "../harness.js";
import { fmt, mb, median, type Row, type Section } from "../stats.js";
import type { BenchSection } from "./section.js";

/** The rows of the sizes measured: the loop, the wire and the whole gap at each. */
function rowsOf(sizes: HarnessSize[]): Section {
  const rows: Row[] = [];
  for (const s of sizes) {
    const at1000 = s.messages >= 1000;
    const target = at1000 ? ({ kind: "under", limit: 5, unit: "ms" } as const) : undefined;
    const label = `${s.messages.toLocaleString("en-US")} msgs (${mb(s.historyBytes)})`;
    rows.push({ key: `harness.loop.${s.messages}`, label: `${label}: loop, response → request event`, value: median(s.loop), unit: "ms", ...(target ? { target } : {}), note: `${s.loop.length} gaps` });
    rows.push({
      key: `harness.wire.${s.messages}`,
      label: `${label}: + SDK/undici, response → body sent`,
      value: median(s.wire),
      unit: "ms",
      ...(target ? { target } : {}),
      note: `SDK ${fmt(median(s.sdk), 2)} + undici send ${fmt(median(s.send), 2)} ms; CPU ${fmt(median(s.wireCpu), 2)} ms`,
      extra: { sdk_ms: median(s.sdk), send_ms: median(s.send), cpu_ms: median(s.wireCpu) },
    });
    rows.push({ key: `harness.whole.${s.messages}`, label: `${label}: last byte in → body sent`, value: median(s.whole), unit: "ms" });
  }
  return {
    title: "1. Harness time per model turn (tools excluded)",
    rows,
    footnotes: [
      "In-process runTurn + real model client → simulator in its own process over HTTP; 5 bench_noop calls per turn, first turn per size discarded.",
      "loop = `response` event → next `request` event (hel's agent loop); body sent = undici request:bodySent (diagnostics_channel),",
      "so it adds the openai SDK building the request and hel's fetch adapter (SDK, up to undici request:create) and undici's body encoding + socket",
      "write (send); last byte in = undici request:trailers. Target column: the brief's bound, applied to both readings at 1,000 messages.",
      "CPU = process.cpuUsage() over the same gap: what the gap costs when the machine is not shared.",
    ],
  };
}

export const harnessSection: BenchSection = {
  name: "harness",
  title: "1. Harness time per model turn",
  async run({ log }) {
    return rowsOf(await measureHarness({ sizes: [10, 100, 1000], turns: (n) => (n >= 1000 ? 6 : n >= 100 ? 12 : 16), steps: 5, log }));
  },
};
