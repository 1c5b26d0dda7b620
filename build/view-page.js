// The script of the session page (src/view/page.ts), bundled with uPlot by rolldown.config.mjs into
// dist/bundle/view-page.js, which the page carries inline. It reads the figures from the page's data
// block and draws two charts: each request's prompt tokens, cached and uncached, and its output
// tokens; and the dollars each agent spent. It reads nothing else and asks for nothing: the page's
// policy allows no request.
import uPlot from "uplot";

const COLORS = { cached: "#3b9a5b", uncached: "#d9822b", output: "#2457c5", dollars: "#7b4fc9" };
const HEIGHT = 320;
const bars = (align) => uPlot.paths.bars({ size: [0.6, 48], align });
/** Whole numbers only on an axis of request or agent numbers. */
const whole = (_, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : ""));

function requestChart(target, requests) {
  const width = () => Math.max(320, Math.min(target.clientWidth || 720, 1100));
  const options = {
    width: width(),
    height: HEIGHT,
    scales: { x: { time: false }, tokens: { auto: true }, output: { auto: true } },
    axes: [
      { label: "request", values: whole },
      { scale: "tokens", label: "prompt tokens", size: 70 },
      { scale: "output", side: 1, label: "output tokens", size: 60, grid: { show: false } },
    ],
    series: [
      { label: "request" },
      { label: "prompt, cached", scale: "tokens", fill: COLORS.cached, stroke: COLORS.cached, paths: uPlot.paths.bars({ size: [0.4, 40], align: -1 }), points: { show: false } },
      { label: "prompt, uncached", scale: "tokens", fill: COLORS.uncached, stroke: COLORS.uncached, paths: uPlot.paths.bars({ size: [0.4, 40], align: 1 }), points: { show: false } },
      { label: "output", scale: "output", stroke: COLORS.output, width: 2, points: { show: true, size: 6 } },
    ],
  };
  const data = [requests.map((_, i) => i + 1), requests.map((r) => r.prompt_cache_hit_tokens), requests.map((r) => r.prompt_cache_miss_tokens), requests.map((r) => r.completion_tokens)];
  const chart = new uPlot(options, data, target);
  window.addEventListener("resize", () => chart.setSize({ width: width(), height: HEIGHT }));
}

function agentChart(target, agents) {
  const known = agents.filter((a) => a.cost_usd !== null);
  if (known.length === 0) return;
  const options = {
    width: Math.max(240, Math.min(target.clientWidth || 288, 480)),
    height: HEIGHT,
    scales: { x: { time: false, range: [0.5, known.length + 0.5] }, usd: { auto: true, range: (_, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { label: "agent", values: (_, ticks) => ticks.map((t) => (Number.isInteger(t) ? (known[t - 1]?.label ?? "") : "")) },
      { scale: "usd", label: "dollars", size: 70, values: (_, ticks) => ticks.map((t) => `$${Number(t.toPrecision(2))}`) },
    ],
    series: [
      { label: "agent", value: (_, i) => (i === null ? "--" : (known[i - 1]?.label ?? "--")) },
      { label: "dollars", scale: "usd", fill: COLORS.dollars, stroke: COLORS.dollars, paths: bars(0), points: { show: false }, value: (_, v) => (v === null ? "--" : `$${v.toFixed(4)}`) },
    ],
  };
  new uPlot(
    options,
    [known.map((_, i) => i + 1), known.map((a) => a.cost_usd)],
    target,
  );
}

function draw() {
  const block = document.getElementById("hel-data");
  if (!block) return;
  const { requests, agents } = JSON.parse(block.textContent ?? "{}");
  const requestTarget = document.getElementById("request-chart");
  if (requestTarget && Array.isArray(requests) && requests.length > 0) requestChart(requestTarget, requests);
  const agentTarget = document.getElementById("agent-chart");
  if (agentTarget && Array.isArray(agents)) agentChart(agentTarget, agents);
}

draw();
