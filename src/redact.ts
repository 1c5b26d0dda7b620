// Secret values — the API key — never reach the model, a spill file, the terminal or a record, even
// when a project file holds them (a `.env`, a shell history) or a server echoes them back (a proxy
// quoting the Authorization header): every tool result, tool error and text a server sent passes
// through here first.
const MIN_SECRET_LENGTH = 8;

export function redactSecrets(text: string, secrets: readonly string[] | undefined): string {
  let out = text;
  for (const secret of secrets ?? []) {
    // Short values would blank out ordinary words; real keys are far longer.
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

/**
 * Whether `json`, text JSON.stringify wrote, holds a secret redactSecrets would mask: as it is, or as
 * JSON escapes it.
 */
export function holdsSecret(json: string, secrets: readonly string[] | undefined): boolean {
  for (const secret of secrets ?? []) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (json.includes(secret)) return true;
    // Most secrets have nothing JSON escapes: one scan of the text each.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && json.includes(escaped)) return true;
  }
  return false;
}

/** For text cut short: a tail that could be the start of a secret is masked as well. */
export function redactSecretTail(text: string, secrets: readonly string[] | undefined): string {
  for (const secret of secrets ?? []) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (let k = secret.length - 1; k >= 4; k--) {
      if (text.endsWith(secret.slice(0, k))) return `${text.slice(0, text.length - k)}[REDACTED]`;
    }
  }
  return text;
}

/**
 * For text that arrives in pieces (a command's output): each piece comes out redacted, and a piece's
 * end that could be the start of a secret is held back until the next piece shows whether it is one.
 */
export class SecretMasker {
  private held = "";
  private readonly secrets: readonly string[];

  constructor(secrets: readonly string[] | undefined) {
    this.secrets = (secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH);
  }

  push(text: string): string {
    if (this.secrets.length === 0) return text;
    const pending = redactSecrets(this.held + text, this.secrets);
    const keep = this.possibleStart(pending);
    this.held = pending.slice(pending.length - keep);
    return pending.slice(0, pending.length - keep);
  }

  end(): string {
    const rest = this.held;
    this.held = "";
    return rest;
  }

  /** Length of the longest end of `text` that is the beginning of a secret. */
  private possibleStart(text: string): number {
    let longest = 0;
    for (const secret of this.secrets) {
      for (let k = Math.min(secret.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(secret.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  }
}
