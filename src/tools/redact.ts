// Secret values — the API key — never reach the model or a spill file, even when a project file
// holds them (a `.env`, a shell history): every tool result passes through here first.
const MIN_SECRET_LENGTH = 8;

export function redactSecrets(text: string, secrets: readonly string[] | undefined): string {
  let out = text;
  for (const secret of secrets ?? []) {
    // Short values would blank out ordinary words; real keys are far longer.
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join("[redacted secret]");
  }
  return out;
}
