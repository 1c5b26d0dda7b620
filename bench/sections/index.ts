// The sections of `npm run bench` in the order they run and print. A section that measures for another
// (startup for version) comes before it.
import { buildLoopSection } from "./build-loop.js";
import { buildSection } from "./build.js";
import { checkpointsSection } from "./checkpoints.js";
import { commandsSection } from "./commands.js";
import { contextSection } from "./context.js";
import { demoSection } from "./demo.js";
import { grepSection } from "./grep.js";
import { harnessSection } from "./harness.js";
import { isolatedSection } from "./isolated.js";
import { mcpSection } from "./mcp.js";
import { memorySection } from "./memory.js";
import { parallelSection } from "./parallel.js";
import { readSection } from "./read.js";
import type { BenchSection } from "./section.js";
import { sessionSection } from "./session.js";
import { startupSection, versionSection } from "./startup.js";
import { worktreesSection } from "./worktrees.js";
import { usageStatsSection } from "./usage-stats.js";

export type { BenchContext, BenchSection } from "./section.js";

export const SECTIONS: readonly BenchSection[] = [
  harnessSection,
  startupSection,
  mcpSection,
  demoSection,
  versionSection,
  readSection,
  sessionSection,
  contextSection,
  buildLoopSection,
  grepSection,
  commandsSection,
  parallelSection,
  checkpointsSection,
  buildSection,
  worktreesSection,
  usageStatsSection,
  isolatedSection,
  memorySection,
];
