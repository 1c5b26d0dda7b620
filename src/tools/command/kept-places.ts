// The places in and around a project that stay read-only to every sandboxed command, beyond the
// project's own `.hel/` and git's settings: every `.hel/` at any depth of the project (a command must
// not leave hel's state, a config or a session, for a later start in a subfolder), and the user's shell
// start-up files and git's user config (a write there runs at the user's next login or commit,
// wherever it is; they matter when the project or a granted folder holds the home directory). The
// folders are found by a walk of at most MAX_DIRS directories, nearest first, `node_modules` last (a
// command or a clone controls what is there too, but it is where the walk would spend its count), and
// not into git directories, where no hel starts.
import { readdirSync, type Dirent } from "node:fs";
import path from "node:path";

const MAX_DIRS = 50_000;

/** `.hel` entries (folders, or links a command may have made) below the project's top, nearest first. */
export function nestedHelDirs(projectDir: string): string[] {
  const found: string[] = [];
  // Read by index, not shift(): shifting a queue of tens of thousands of folders copies it each time.
  const queue = [projectDir];
  const later: string[] = [];
  let next = 0;
  let nextLater = 0;
  for (let walked = 0; walked < MAX_DIRS; walked++) {
    const dir = next < queue.length ? queue[next++] : later[nextLater++];
    if (dir === undefined) break;
    for (const entry of list(dir)) {
      const p = path.join(dir, entry.name);
      if (entry.name === ".hel") {
        if (dir !== projectDir && (entry.isDirectory() || entry.isSymbolicLink())) found.push(p);
      } else if (entry.isDirectory() && entry.name !== ".git") (entry.name === "node_modules" ? later : queue).push(p);
    }
  }
  return found;
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The shell start-up files and git's user config under the home directory, whether they exist or not. */
export function userStartupFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  if (home === undefined || !path.isAbsolute(home)) return [];
  const config = env.XDG_CONFIG_HOME !== undefined && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, ".config");
  const zdot = env.ZDOTDIR !== undefined && path.isAbsolute(env.ZDOTDIR) ? env.ZDOTDIR : home;
  return [
    ...[".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".inputrc", ".gitconfig"].map((f) => path.join(home, f)),
    ...[".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout"].map((f) => path.join(zdot, f)),
    path.join(home, ".zshenv"),
    path.join(config, "fish"),
    path.join(config, "git"),
    path.join(config, "environment.d"),
    path.join(config, "autostart"),
    path.join(config, "systemd"),
  ].filter((p, i, all) => all.indexOf(p) === i);
}
