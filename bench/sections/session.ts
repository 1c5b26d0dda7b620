// The session section: saving and loading snapshots by size, with the steps of the large ones.
import { measureSessions } from "../session.js";
import { fmt, median, type Row } from "../stats.js";
import type { BenchSection } from "./section.js";

/** The figures of `o` whose names open with `prefix`: one operation's steps. */
const pick = (o: Record<string, number>, prefix: string): Record<string, number> => Object.fromEntries(Object.entries(o).filter(([k]) => k.startsWith(prefix)));

export const sessionSection: BenchSection = {
  name: "session",
  title: "6. Session save and load",
  async run({ log }) {
    const sizes = await measureSessions({ log });
    const rows: Row[] = [];
    const breakdown: string[] = [];
    for (const s of sizes) {
      const at10 = s.targetBytes === 10_000_000;
      const fileMb = s.fileBytes / 1e6;
      const save = median(s.saveMs);
      const load = median(s.loadMs);
      const key = s.label.replace(" ", "");
      rows.push({
        key: `session.save.${key}`,
        label: `save ${s.label} (${fmt(fileMb, 2)} MB, ${s.messages} msgs)`,
        value: save,
        unit: "ms",
        ...(at10 ? { target: { kind: "under", limit: 30, unit: "ms" } as const } : {}),
        note: `${fmt(save / fileMb, 2)} ms/MB · CPU ${fmt(median(s.saveCpuMs))} ms · peak +${fmt(median(s.savePeakMb))} MB · ${s.saveMs.length} reps`,
        extra: { ms_per_mb: save / fileMb, cpu_ms: median(s.saveCpuMs), peak_rss_delta_mb: median(s.savePeakMb), file_bytes: s.fileBytes, ...pick(s.steps, "save_") },
      });
      rows.push({
        key: `session.load.${key}`,
        label: `load ${s.label}`,
        value: load,
        unit: "ms",
        ...(at10 ? { target: { kind: "under", limit: 60, unit: "ms" } as const } : {}),
        note: `${fmt(load / fileMb, 2)} ms/MB · CPU ${fmt(median(s.loadCpuMs))} ms · peak +${fmt(median(s.loadPeakMb))} MB · ${s.loadMs.length} reps`,
        extra: {
          ms_per_mb: load / fileMb,
          cpu_ms: median(s.loadCpuMs),
          peak_rss_delta_mb: median(s.loadPeakMb),
          file_bytes: s.fileBytes,
          child_peak_rss_mb: s.loadPeakRssMb ?? Number.NaN,
          ...pick(s.steps, "load_"),
        },
      });
      const resave = median(s.resumeSaveMs);
      rows.push({
        key: `session.resume_save.${key}`,
        label: `first save after a load, ${s.label}`,
        value: resave,
        unit: "ms",
        note: `${fmt(resave / fileMb, 2)} ms/MB · ${s.resumeSaveMs.length} reps`,
        extra: { ms_per_mb: resave / fileMb },
      });
      const st = s.steps;
      if (s.targetBytes >= 10_000_000) {
        breakdown.push(
          `${s.label} steps — save: validate ${fmt(st["save_validate_ms"]!)} + pairing ${fmt(st["save_pairing_ms"]!)} + encode ${fmt(st["save_encode_ms"]!)} + write/fsync ${fmt(st["save_write_fsync_ms"]!)} ms;` +
            ` load: read ${fmt(st["load_read_ms"]!)} + decode and JSON.parse by line ${fmt(st["load_split_parse_ms"]!)} + validate ${fmt(st["load_validate_ms"]!)} ms`,
        );
      }
    }
    return {
      title: "6. Session save and load (real saveSnapshot/loadSnapshot; per size, one child process saves, a new one loads)",
      rows,
      footnotes: [
        "Save = validate + encode + temp file, fsync, rename, dir fsync; load = read + parse + validate, in a process holding nothing else, as a resume.",
        "An unmeasured save and load come first in each process. First save after a load = the loaded snapshot plus one exchange, saved in",
        "the loading process, as a resume's first answer is: the history goes to disk from the bytes the load read.",
        "CPU = process.cpuUsage() over the operation; peak + = VmHWM during it − VmRSS before it (peak reset via /proc/self/clear_refs, gc() first):",
        "memory a previous operation left resident is reused, so this is the steady-state rise, not what was allocated.",
        "Steps below: each timed alone, repeatedly, on memory already touched, so they sum to less than the totals above; the rest is",
        "first-touch page faults on new heap and buffers (see the fresh-memory line at the top) and garbage collection.",
        ...breakdown,
      ],
    };
  },
};
