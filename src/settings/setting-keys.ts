// The settings a config file may give, by their long flag names, and the run option each one sets:
// the command line (options.ts) says which of them a flag gave, the config files (config.ts) give the rest.
// Both check a model name against the same bound.
export const SETTING_OPTIONS = {
  model: "model",
  effort: "effort",
  access: "access",
  network: "network",
  "auto-fold": "autoFold",
  "compact-at": "compactAt",
  "child-max-steps": "childMaxSteps",
  "child-max-tokens": "childMaxTokens",
  "base-url": "baseUrl",
  "child-model": "childModel",
  "max-cost": "maxCost",
  approval: "approval",
  // Config keys only: command prefixes that run outside the sandbox unasked, and how much disk the
  // file checkpoints may take before the oldest are pruned.
  allow: "allow",
  "checkpoint-max-mb": "checkpointMaxMb",
  // Config keys only: the MCP servers to start (the user's own and a trusted project's), and how long
  // one call of their tools may wait for its answer, in seconds.
  "mcp-servers": "mcpServers",
  "mcp-timeout": "mcpTimeout",
} as const;
export type SettingKey = keyof typeof SETTING_OPTIONS;

/** Model names are short; a longer one is a mistake that every request and error line would repeat. */
export const MAX_MODEL_NAME = 256;
