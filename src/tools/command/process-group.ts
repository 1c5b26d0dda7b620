// Process groups of the commands hel starts: whether one still has live members, which process led
// it (so a record of it is not fooled by a reused process id), and ending it: SIGTERM to every member,
// then SIGKILL to what is left after a grace period. A member that has exited but was never reaped
// (a zombie, left by an init that does not reap) counts as gone: it runs nothing and holds nothing.
// /proc is read synchronously: its files are generated in memory and read in microseconds, while a
// round trip through the thread pool per process would make a poll cost milliseconds.
import { readdirSync, readFileSync } from "node:fs";
import type { ProcessGroup } from "../types.js";

interface ProcStat {
  state: string;
  pgrp: number;
  start: string;
}

const HAS_PROC = process.platform === "linux";

/** /proc/<pid>/stat, parsed after the command name, which may hold spaces and parentheses. */
function procStat(pid: number | string): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", pgrp: Number(fields[2]), start: fields[19] ?? "" };
}

export function groupOf(pgid: number): ProcessGroup {
  return { pgid, leaderStart: HAS_PROC ? (procStat(pgid)?.start ?? null) : null };
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    // EPERM: the group exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the group has a member that is not a zombie. */
export function groupHasLiveMembers(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (!HAS_PROC) return true;
  // The leader, while it runs, is a member: no need to look through every process.
  const leader = procStat(pgid);
  if (leader !== null && leader.pgrp === pgid && !isGone(leader)) return true;
  let pids: string[];
  try {
    pids = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = procStat(pid);
    if (stat !== null && stat.pgrp === pgid && !isGone(stat)) return true;
  }
  return false;
}

/** Exited: a zombie waiting to be reaped, or dead. */
function isGone(stat: ProcStat): boolean {
  return stat.state === "Z" || stat.state === "X";
}

/**
 * Whether the group a record describes still runs. Once its last member is gone the id can be
 * reused, so a live group whose leader started at another time is someone else's.
 */
export function recordedGroupAlive(group: ProcessGroup): boolean {
  if (!groupHasLiveMembers(group.pgid)) return false;
  if (!HAS_PROC || group.leaderStart === null) return true;
  const leader = procStat(group.pgid);
  return leader === null || leader.start === group.leaderStart;
}

/** Polls start short: members that are exiting anyway are gone within a few milliseconds. */
const FIRST_POLL_MS = 1;
const MAX_POLL_MS = 25;

/** SIGTERM to the group, SIGKILL after `graceMs` if members remain; resolves once none is left running. */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  for (let wait = FIRST_POLL_MS; Date.now() < deadline; wait = Math.min(wait * 2, MAX_POLL_MS)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (!groupHasLiveMembers(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
}

/** For process exit: no waiting, no grace. */
export function killGroupNow(pgid: number): void {
  signalGroup(pgid, "SIGKILL");
}
