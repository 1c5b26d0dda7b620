// Child processes for the bench: wall time from just before spawn to the exit event, and the peak
// RSS and CPU time of that one process. Contract: peak RSS comes from GNU time's %M (the kernel's
// ru_maxrss of the child, exact) and CPU time from its %U + %S (10 ms steps) when /usr/bin/time
// exists; otherwise VmHWM and utime+stime are polled from /proc every millisecond, which can only
// under-report what happened in the last millisecond. `rssMethod` says which was used. CPU time is
// there because wall time on a shared 2-core machine also measures everyone else's work.
import { spawn, spawnSync, type SpawnOptions } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const GNU_TIME = "/usr/bin/time";

let method: "gnu-time" | "proc-poll" | undefined;
/** Decided on first use, so the probe children, which import this file for selfRss, never spawn time(1). */
export function rssMethod(): "gnu-time" | "proc-poll" {
  method ??= existsSync(GNU_TIME) && gnuTimeWorks() ? "gnu-time" : "proc-poll";
  return method;
}

function gnuTimeWorks(): boolean {
  // BusyBox time has no -o/-f %M; only GNU time is trusted for the exact figure.
  try {
    const { status } = spawnSync(GNU_TIME, ["-f", "%M", "-o", "/dev/null", "true"]);
    return status === 0;
  } catch {
    return false;
  }
}

export interface ChildResult {
  code: number | null;
  wallMs: number;
  /** Peak resident set of the process, MB (10^6 bytes); null when not asked for or not measurable. */
  peakRssMb: number | null;
  /** User + system CPU time of the process, ms; null when not asked for or not measurable. */
  cpuMs: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Measure the child's peak RSS and CPU time (see the module comment for how). */
  resources?: boolean;
  /** Called with performance.now() taken just before spawn, and the pid, for measurements that end elsewhere. */
  onSpawn?: (t0: number, pid: number | undefined) => void;
}

export async function runChild(command: string, args: readonly string[], options: RunOptions = {}): Promise<ChildResult> {
  const spawnOptions: SpawnOptions = { env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] };
  if (options.cwd) spawnOptions.cwd = options.cwd;
  let timeFile: string | null = null;
  let cmd = command;
  let argv = [...args];
  if (options.resources && rssMethod() === "gnu-time") {
    const dir = await mkdtemp(join(tmpdir(), "hel-bench-time-"));
    timeFile = join(dir, "rss");
    cmd = GNU_TIME;
    argv = ["-f", "%M %U %S", "-o", timeFile, command, ...args];
  }
  const t0 = performance.now();
  const child = spawn(cmd, argv, spawnOptions);
  options.onSpawn?.(t0, child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));

  let polledKb = 0;
  let polledTicks = 0;
  let poll: ReturnType<typeof setInterval> | undefined;
  if (options.resources && rssMethod() === "proc-poll" && child.pid !== undefined) {
    const pid = child.pid;
    poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) polledKb = Math.max(polledKb, Number(m[1]));
        // Fields 14 and 15 of stat (utime, stime), counted after the parenthesised command name.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        polledTicks = Math.max(polledTicks, Number(f[11]) + Number(f[12]));
      } catch {
        // Gone already: the last sample stands.
      }
    }, 1);
  }

  // Wall time ends at "exit"; the streams may still be draining then, so the result waits for "close".
  let exitAt = Number.NaN;
  child.once("exit", () => (exitAt = performance.now()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (c) => resolve(c));
  });
  const wallMs = exitAt - t0;
  if (poll) clearInterval(poll);

  let peakRssMb: number | null = null;
  let cpuMs: number | null = null;
  if (timeFile) {
    const text = await readFile(timeFile, "utf8").catch(() => "");
    // GNU time prefixes "Command exited with non-zero status N" when the child fails; the figures are the last line.
    const [kb, user, sys] = (text.trim().split("\n").pop() ?? "").split(" ").map(Number) as [number, number, number];
    peakRssMb = Number.isFinite(kb) && kb > 0 ? (kb * 1024) / 1e6 : null;
    cpuMs = Number.isFinite(user) && Number.isFinite(sys) ? (user + sys) * 1000 : null;
    await rm(join(timeFile, ".."), { recursive: true, force: true });
  } else if (options.resources) {
    peakRssMb = polledKb > 0 ? (polledKb * 1024) / 1e6 : null;
    cpuMs = polledTicks > 0 ? polledTicks * 10 : null;
  }
  return { code, wallMs, peakRssMb, cpuMs, stdout, stderr };
}

/** Peak and current RSS of this process, MB, from /proc/self/status (Linux). */
export function selfRss(): { hwmMb: number; rssMb: number } {
  const text = readFileSync("/proc/self/status", "utf8");
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN);
  return { hwmMb: (kb("VmHWM") * 1024) / 1e6, rssMb: (kb("VmRSS") * 1024) / 1e6 };
}

/** Resets this process's VmHWM to its current RSS (Linux ≥ 4.0), so a later VmHWM is the peak of what ran since. */
export function resetPeakRss(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU time so far of a live process, all threads summed, and how long its main thread has waited for a
 * CPU while runnable, both ms, from /proc/<pid>/task/<tid>/schedstat (nanoseconds); null when unreadable.
 */
export function schedTimes(pid: number): { cpuMs: number; mainWaitMs: number } | null {
  try {
    let cpuNs = 0;
    let mainWaitNs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number) as [number, number];
      cpuNs += run;
      if (tid === String(pid)) mainWaitNs = wait;
    }
    return { cpuMs: cpuNs / 1e6, mainWaitMs: mainWaitNs / 1e6 };
  } catch {
    return null;
  }
}
