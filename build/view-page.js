// The script of the session page (src/view/page.ts), bundled with uPlot by rolldown.config.mjs into
// dist/bundle/view-page.js, which the page carries inline. It reads the requests from the page's data
// block and draws one chart: each request's prompt tokens, cached and uncached, and its output tokens.
// It reads nothing else and asks for nothing: the page's policy allows no request.
import uPlot from "uplot";

const COLORS = { cached: "#3b9a5b", uncached: "#d9822b", output: "#2457c5" };

function draw() {
  const target = document.getElementById("request-chart");
  const block = document.getElementById("hel-data");
  if (!target || !block) return;
  const { requests } = JSON.parse(block.textContent ?? "{}");
  if (!Array.isArray(requests) || requests.length === 0) return;
  const x = requests.map((_, i) => i + 1);
  const bars = (align) => uPlot.paths.bars({ size: [0.4, 40], align });
  const width = () => Math.max(320, Math.min(target.clientWidth || 960, 1100));
  const options = {
    width: width(),
    height: 320,
    scales: { x: { time: false }, tokens: { auto: true }, output: { auto: true } },
    axes: [
      { label: "request", values: (_, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) },
      { scale: "tokens", label: "prompt tokens", size: 70 },
      { scale: "output", side: 1, label: "output tokens", size: 60, grid: { show: false } },
    ],
    series: [
      { label: "request" },
      { label: "prompt, cached", scale: "tokens", fill: COLORS.cached, stroke: COLORS.cached, paths: bars(-1), points: { show: false } },
      { label: "prompt, uncached", scale: "tokens", fill: COLORS.uncached, stroke: COLORS.uncached, paths: bars(1), points: { show: false } },
      { label: "output", scale: "output", stroke: COLORS.output, width: 2, points: { show: true, size: 6 } },
    ],
  };
  const data = [x, requests.map((r) => r.prompt_cache_hit_tokens), requests.map((r) => r.prompt_cache_miss_tokens), requests.map((r) => r.completion_tokens)];
  const chart = new uPlot(options, data, target);
  window.addEventListener("resize", () => chart.setSize({ width: width(), height: 320 }));
}

draw();
