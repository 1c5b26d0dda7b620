// The one precedence rule of the user's and the project's own files: where two name the same thing (a
// skill, an agent, a command, an MCP server), the project's wins over the user's, and what a flag names
// wins over both. The winner is chosen before anything is read, so a project's file that turns out
// bad is skipped with its diagnostic and does not let the user's of that name through.
const SCOPES = ["user", "project", "flag"] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Of the entries named alike, the one of the highest scope (within one scope, the first given); each
 * name where it first appears, as a later object spread over an earlier one keeps it.
 */
export function byPrecedence<T extends { scope: Scope }>(entries: Iterable<T>, nameOf: (entry: T) => string): Map<string, T> {
  const chosen = new Map<string, T>();
  for (const entry of entries) {
    const name = nameOf(entry);
    const held = chosen.get(name);
    if (held === undefined || SCOPES.indexOf(entry.scope) > SCOPES.indexOf(held.scope)) chosen.set(name, entry);
  }
  return chosen;
}
