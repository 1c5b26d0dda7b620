// The build section: the no-op build and the npm scripts that run it first.
import { measureBuilds } from "../build.js";
import { median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const buildSection: BenchSection = {
  name: "build",
  title: "12. Builds with nothing changed",
  async run({ log }) {
    const t = await measureBuilds({ runs: 5, log });
    const script = { kind: "under", limit: 2000, unit: "ms" } as const;
    return {
      title: "12. Builds with nothing changed since the last one (spawn → exit)",
      rows: [
        { key: "build.noop", label: "node scripts/build.mjs --dev", value: median(t.buildMs), unit: "ms", note: `${t.buildMs.length} runs` },
        { key: "build.sim_help", label: "npm run sim -- --help (the build, then the script)", value: median(t.simHelpMs), unit: "ms", target: script, note: `${t.simHelpMs.length} runs` },
        { key: "build.cost_model", label: "npm run evals -- cost-model", value: median(t.costModelMs), unit: "ms", target: script, note: `${t.costModelMs.length} runs` },
      ],
      footnotes: ["Every npm script builds first; before the build was incremental, each of these rebuilt everything from clean."],
    };
  },
};
