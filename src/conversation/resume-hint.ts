// The command that resumes a session, as the user can type it where they stand: `hel --resume <id>`
// when the folder they are in leads to the session's project, else with `-C` naming the project. A
// wrapper that runs hel for the user (`npm run try`) names itself in HEL_RESUME_COMMAND, since the
// `hel` it runs may not be on their PATH; the wrapper finds the project itself, so no `-C`.
import { realpath } from "node:fs/promises";
import { findProjectRoot } from "./project-root.js";

export async function resumeHint(id: string, projectDir: string, userDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const wrapper = env.HEL_RESUME_COMMAND?.trim();
  if (wrapper) return `${wrapper} --resume ${id}`;
  const here = await realpath(userDir)
    .then((dir) => findProjectRoot(dir))
    .catch(() => null);
  return here?.root === projectDir ? `hel --resume ${id}` : `hel --resume ${id} -C ${shellWord(projectDir)}`;
}

/** A path as one shell word: quoted when it holds anything a shell would read otherwise. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
