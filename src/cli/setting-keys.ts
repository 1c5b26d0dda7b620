// The settings a config file may give, by their long flag names, and the run option each one sets:
// the command line (options.ts) says which of them a flag gave, the config files (config.ts) give the rest.
export const SETTING_OPTIONS = {
  model: "model",
  effort: "effort",
  access: "access",
  network: "network",
  "compact-at": "compactAt",
  "child-max-steps": "childMaxSteps",
  "child-max-tokens": "childMaxTokens",
  "base-url": "baseUrl",
  // A config key only: how much disk the file checkpoints may take before the oldest are pruned.
  "checkpoint-max-mb": "checkpointMaxMb",
} as const;
export type SettingKey = keyof typeof SETTING_OPTIONS;
