/**
 * Evaluation runs as TREC files (issue 30), so trec_eval / ir_measures can recompute any figure:
 * one run file per (corpus, set, facet source, row), `qid Q0 docid rank score tag`, and one qrels
 * file per (corpus, set), `qid 0 docid 1`. The runs keep ranked ids only, no scores, so a run's
 * score is n − rank + 1 (n = its list's length): strictly decreasing, which is all trec_eval reads
 * (it sorts by score, not by rank).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import { CodedError } from "@/lib/errors";

/** What a TREC file needs of a run: the query, its ranked ids, its gold; `error` runs retrieved nothing. */
export interface TrecRun {
  id: string;
  retrieved: readonly string[];
  gold: readonly string[];
  error?: string;
}

/** An id or name a TREC file cannot hold: whitespace would split its line, a slash its file name. */
export class TrecFormatError extends CodedError {
  constructor(message: string) {
    super("invalid_record", message);
    this.name = "TrecFormatError";
  }
}

function field(what: string, value: string): string {
  if (value === "" || /\s/.test(value))
    throw new TrecFormatError(`${what} ${JSON.stringify(value)} is empty or contains whitespace; a TREC file cannot hold it`);
  return value;
}

/** The run file's lines: every retrieved id of every run without an error, rank from 1. */
export function trecRunLines(runs: readonly TrecRun[], tag: string): string[] {
  field("run tag", tag);
  return runs
    .filter((r) => !r.error)
    .flatMap((r) => r.retrieved.map((doc, i) => `${field("query id", r.id)} Q0 ${field("document id", doc)} ${i + 1} ${r.retrieved.length - i} ${tag}`));
}

/** The qrels lines: one per gold pair, each query once (every row of a set runs the same queries). */
export function trecQrelsLines(runs: readonly TrecRun[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const r of runs) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    for (const doc of r.gold) lines.push(`${field("query id", r.id)} 0 ${field("document id", doc)} 1`);
  }
  return lines;
}

/** Which runs these are: the file names' parts. */
export interface TrecRunKey {
  corpus: string;
  set: string;
  source: string;
  method: string;
}

const fileText = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join("");

/**
 * Writes `<corpus>.<set>.<source>.<method>.run` and `<corpus>.<set>.qrels` into `folder` (made if
 * missing); the qrels are the same for every row of a set, so a later row rewrites them unchanged.
 * Returns the two paths.
 */
export function writeTrecFiles(folder: string, key: TrecRunKey, runs: readonly TrecRun[]): { run: string; qrels: string } {
  for (const [what, value] of Object.entries(key))
    if (value === "" || /[\s/\\]/.test(value)) throw new TrecFormatError(`${what} ${JSON.stringify(value)} cannot be part of a TREC file name`);
  const run = path.join(folder, `${key.corpus}.${key.set}.${key.source}.${key.method}.run`);
  const qrels = path.join(folder, `${key.corpus}.${key.set}.qrels`);
  const runText = fileText(trecRunLines(runs, key.method));
  const qrelsText = fileText(trecQrelsLines(runs));
  mkdirSync(folder, { recursive: true });
  writeFileAtomic(run, runText);
  writeFileAtomic(qrels, qrelsText);
  return { run, qrels };
}
