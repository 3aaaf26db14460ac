/**
 * The pinned quality check (issue 30): the default retriever's R@20 on fixed slices of the
 * development sets, through relatedPapers, against figures recorded in reports/quality-pins.json.
 * `npm test` runs it on the demo store it builds; a drop beyond the tolerance fails the run.
 * Rankings are deterministic, so any change in a figure is a change in the code or its model:
 * the tolerance only absorbs floating-point differences between machines, and updating the pins
 * is a deliberate command (`npm run quality:pin -- --write`) whose diff a reviewer reads.
 *
 * Slices: the first `n` queries of a seeded sample of the report halves of set 2 (earlier work:
 * the papers a test paper cites) and set 3 (later work: the test papers citing a train paper),
 * with their LLM facets, as records.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { writeFileAtomic } from "@/lib/atomic-write";
import { sampleUserPapers } from "./user-papers-suite";
import { runUserPapers, userPaperQueries, userPaperRecall, type UserPaperSet } from "./user-papers";

const pinSchema = z.object({
  set: z.enum(["ooc", "unseen-report", "unseen-tune", "later-report", "later-tune"]),
  source: z.enum(["llm", "offline"]),
  retriever: z.string().min(1),
  queries: z.number().int().positive(),
  seed: z.number().int(),
  "R@20": z.number().min(0).max(1),
});
export const pinsSchema = z.object({
  /** Largest allowed drop in R@20 below a pinned figure. */
  tolerance: z.number().min(0).max(0.2),
  corpus: z.string().min(1),
  pins: z.array(pinSchema).min(1),
});
export type QualityPins = z.infer<typeof pinsSchema>;
export type QualityPin = z.infer<typeof pinSchema>;

export interface PinOutcome {
  pin: QualityPin;
  measured: number;
  /** measured − pinned. */
  change: number;
  ok: boolean;
}

export const readPins = (file: string): QualityPins => pinsSchema.parse(JSON.parse(readFileSync(file, "utf8")));

/** R@20 of one pin's slice, through relatedPapers on the store. */
export async function measurePin(db: Db, corpus: string, corpusDir: string, pin: Omit<QualityPin, "R@20">): Promise<number> {
  const queries = sampleUserPapers(userPaperQueries(corpusDir, pin.set as UserPaperSet), pin.queries, pin.seed);
  const runs = await runUserPapers(db, corpus, queries, { retriever: pin.retriever }, pin.source);
  return userPaperRecall(runs, { resamples: 1 }).recall[20];
}

/** Every pin measured and compared: ok when no figure fell more than the tolerance. */
export async function checkPins(db: Db, pins: QualityPins, corpusDir: string): Promise<PinOutcome[]> {
  const out: PinOutcome[] = [];
  for (const pin of pins.pins) {
    const measured = await measurePin(db, pins.corpus, corpusDir, pin);
    const change = measured - pin["R@20"];
    out.push({ pin, measured, change, ok: change >= -pins.tolerance - 1e-12 });
  }
  return out;
}

/** The pins file with every figure measured anew (the deliberate update). */
export async function repin(db: Db, pins: QualityPins, corpusDir: string, file: string): Promise<QualityPins> {
  const next: QualityPins = { ...pins, pins: [] };
  for (const pin of pins.pins) next.pins.push({ ...pin, "R@20": Number((await measurePin(db, pins.corpus, corpusDir, pin)).toFixed(4)) });
  writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}
