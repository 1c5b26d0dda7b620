// Secret values — the API key — never reach the model, a spill file, the terminal or a record, even
// when a project file holds them (a `.env`, a shell history) or a server echoes them back (a proxy
// quoting the Authorization header): every tool result, tool error and text a server sent passes
// through here first.
const MIN_SECRET_LENGTH = 8;

export function redactSecrets(text: string, secrets: readonly string[] | undefined): string {
  let out = text;
  for (const secret of secrets ?? []) {
    // Short values would blank out ordinary words; real keys are far longer.
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join("[redacted secret]");
  }
  return out;
}

/** For text cut short: a tail that could be the start of a secret is masked as well. */
export function redactSecretTail(text: string, secrets: readonly string[] | undefined): string {
  for (const secret of secrets ?? []) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (let k = secret.length - 1; k >= 4; k--) {
      if (text.endsWith(secret.slice(0, k))) return `${text.slice(0, text.length - k)}[redacted secret]`;
    }
  }
  return text;
}
