// The environment a command runs with: hel's own, minus every variable that may hold a credential, plus
// the settings that keep programs from waiting for a person (an editor, a pager, a password prompt) or
// writing colour codes the model would have to read around. The values taken out are secrets like the
// API key: hel masks them wherever a command or a file shows them (credentialValues).
// AUTH but not AUTHOR: GIT_AUTHOR_NAME names a person, not a credential.
const CREDENTIAL_NAME = /KEY|SECRET|TOKEN|PASSWORD|_PASS|PASS$|_PWD|CREDENTIAL|AUTH(?!OR_)|COOKIE|PRIVATE/i;
/** A URL with a password in it: scheme://user:password@host. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:([^/\s@]+)@/i;

const NON_INTERACTIVE: Readonly<Record<string, string>> = Object.freeze({
  GIT_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
  PAGER: "cat",
  GIT_PAGER: "cat",
  NO_COLOR: "1",
});

// DEEPSEEK_API_KEY matches the names too; it is the one credential hel is sure to hold.
const holdsCredential = (name: string, value: string): boolean => CREDENTIAL_NAME.test(name) || URL_WITH_PASSWORD.test(value);

export function commandEnvironment(base: NodeJS.ProcessEnv, overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !holdsCredential(name, value)) env[name] = value;
  }
  return { ...env, ...NON_INTERACTIVE, ...overrides };
}

/** The values commandEnvironment keeps from commands, and the password of each URL among them, to mask. */
export function credentialValues(base: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !holdsCredential(name, value)) continue;
    values.add(value);
    const password = URL_WITH_PASSWORD.exec(value)?.[1];
    if (password) values.add(password);
  }
  return [...values];
}
