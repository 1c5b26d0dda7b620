// The environment a command runs with: hel's own, minus every variable that may hold a credential, plus
// the settings that keep programs from waiting for a person (an editor, a pager, a password prompt) or
// writing colour codes the model would have to read around.
const CREDENTIAL_NAME = /KEY|SECRET|TOKEN|PASSWORD/i;

export const NON_INTERACTIVE: Readonly<Record<string, string>> = Object.freeze({
  GIT_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
  PAGER: "cat",
  GIT_PAGER: "cat",
  NO_COLOR: "1",
});

export function commandEnvironment(base: NodeJS.ProcessEnv, overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    // DEEPSEEK_API_KEY matches the pattern too; it is the one credential hel is sure to hold.
    if (value !== undefined && !CREDENTIAL_NAME.test(name)) env[name] = value;
  }
  return { ...env, ...NON_INTERACTIVE, ...overrides };
}
