// A problem with one of the user's or the project's own files (a config file, a rule, a skill, an
// agent, a command file, a hook, an MCP server), as data: the file is left out, or the part of it that
// is wrong, and the run goes on. The front end shows each one: the terminal as a `hel:` warning line,
// an editor over ACP as a message of its own.
export interface Diagnostic {
  /** The file the problem is in, as a path the user can open. */
  file: string;
  /** One line for a person: what is wrong and what was done about it (the terminal prints it as it is). */
  problem: string;
}
