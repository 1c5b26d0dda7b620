// Runs one auto-fold of a live conversation: when the latest tool results closed a large command
// episode, the in-band note request (asked once more when its answer is not the note), then the view
// rewritten through planAutoFold and reported as a `fold` event whose file is marked automatic (the
// session archives it from there). Without a good note the episode stays where it is.
import type { Message } from "../../wire/messages.js";
import { estimateInputTokens, meterBefore, type Meter } from "../meter.js";
import { addUsage, emptyTotals, type UsageTotals } from "../usage.js";
import type { ArchiveIndex } from "./archive-index.js";
import { AUTO_FOLD_MIN_TOKENS, autoFoldInstruction, autoFoldRetry, parseAutoFoldNote, planAutoFold } from "./auto-fold.js";
import { closedEpisode } from "./episodes.js";
import { askInBand, type InBandRun } from "./in-band.js";

export interface AutoFoldOutcome {
  meter: Meter | null;
  /** The note requests' usage; empty when none was sent. */
  usage: UsageTotals;
}

export async function autoFoldNow(messages: Message[], run: InBandRun & { archive: ArchiveIndex }, signal: AbortSignal, meter: Meter | null, step: number): Promise<AutoFoldOutcome> {
  let usage = emptyTotals();
  const episode = closedEpisode(messages, AUTO_FOLD_MIN_TOKENS);
  if (!episode) return { meter, usage };
  const asked: Message[] = [...messages, { role: "user", content: autoFoldInstruction(messages, episode) }];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await askInBand(run, asked, signal, step);
    if (!answer.ok) return { meter, usage };
    const { turn } = answer;
    usage = addUsage(usage, turn.usage);
    const text = turn.finishReason === "length" ? "" : (turn.message.content ?? "");
    const parsed = parseAutoFoldNote(text);
    if (parsed.ok) {
      const plan = planAutoFold(messages, episode, parsed.note, run.archive.entries);
      const tokensBefore = estimateInputTokens(meter, messages);
      const next = meter && meterBefore(meter, messages, episode.start);
      messages.splice(0, messages.length, ...plan.view);
      run.archive.add(plan.file);
      run.emit({ ...run.ref, type: "fold", file: plan.file, start: episode.start, tokensBefore, tokensAfter: estimateInputTokens(next, messages) });
      return { meter: next, usage };
    }
    if (signal.aborted) break;
    asked.push({ role: "assistant", content: text }, { role: "user", content: autoFoldRetry(parsed.reason) });
  }
  return { meter, usage };
}
