// The read section: read_file's first page of a 1 GB file against a 1 MB one, in time and memory.
import { measureReadFile } from "../read-file.js";
import { fmt, mb, median } from "../stats.js";
import type { BenchSection } from "./section.js";

export const readSection: BenchSection = {
  name: "read",
  title: "5. read_file first page",
  async run({ log }) {
    const [small, big] = await measureReadFile({ runs: 5, log });
    const rss = (s: typeof small) => median(s!.peakRssMb);
    const own = (s: typeof small) => median(s!.readPeakMb);
    return {
      title: "5. read_file's first page: 1 GB file vs 1 MB file (fresh child process each)",
      rows: [
        { key: "read.ms.1MB", label: "time, 1 MB file", value: median(small!.ms), unit: "ms", note: `${small!.ms.length} runs, page ${mb(small!.pageBytes)}` },
        { key: "read.ms.1GB", label: "time, 1 GB file", value: median(big!.ms), unit: "ms", note: `${big!.ms.length} runs, page ${mb(big!.pageBytes)}` },
        { key: "read.rss.1MB", label: "peak RSS of the child, 1 MB file", value: rss(small), unit: "MB", note: `the read itself: +${fmt(own(small), 2)} MB` },
        { key: "read.rss.1GB", label: "peak RSS of the child, 1 GB file", value: rss(big), unit: "MB", note: `the read itself: +${fmt(own(big), 2)} MB` },
        { key: "read.rss.ratio", label: "peak RSS ratio 1 GB / 1 MB", value: rss(big) / rss(small), unit: "x", target: { kind: "about", value: 1, tolerance: 0.05 } },
      ],
      footnotes: [
        "Time = executeToolCall(read_file) alone, first call in the process (files in the page cache). Text files of ~80-byte lines.",
        "The read itself = VmHWM after the call − VmRSS before it, with the peak reset (/proc/self/clear_refs) just before.",
      ],
    };
  },
};
