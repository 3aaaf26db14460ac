/**
 * The cosine threshold at which a facet item "matches" another, derived from data rather than
 * picked: positive pairs are an LLM item and the abstract sentence it was lexically drawn from
 * (independent of the embedder); null pairs are an LLM item and the best sentence of a random
 * other abstract (on-topic text that is not its source; the max over a paper's sentences mirrors
 * the max over a paper's extracted items in the metric). The threshold is their equal-error point.
 * Shared by training (calibrated on dev) and evaluation (calibrated on test).
 */
import { overlap } from "./label";
import { rng } from "./train";

export interface CalibrationPaper {
  items: string[];
  sentences: string[];
}

export interface Calibration {
  threshold: number;
  equalErrorRate: number;
  positive: number[];
  null: number[];
}

/** Lexical F1 at which a sentence is taken as an item's source for the positive pairs. */
export const SOURCE_MIN_F1 = 0.4;

export function calibrateThreshold(papers: readonly CalibrationPaper[], cos: (a: string, b: string) => number, seed = 7): Calibration {
  const rand = rng(seed);
  const positive: number[] = [];
  const nul: number[] = [];
  papers.forEach((p, i) => {
    for (const item of p.items) {
      const ov = p.sentences.map((s) => overlap(item, s).f1);
      const best = ov.indexOf(Math.max(...ov));
      if (best >= 0 && ov[best] >= SOURCE_MIN_F1) positive.push(cos(item, p.sentences[best]));
      let j = Math.floor(rand() * papers.length);
      if (j === i) j = (j + 1) % papers.length;
      if (papers[j].sentences.length) nul.push(Math.max(...papers[j].sentences.map((s) => cos(item, s))));
    }
  });
  let threshold = 0.5;
  let eer = 1;
  let gap = Infinity;
  for (let k = 60; k <= 180; k++) {
    const t = k / 200; // 0.300 .. 0.900 in steps of 0.005
    const fnr = positive.filter((x) => x < t).length / Math.max(1, positive.length);
    const fpr = nul.filter((x) => x >= t).length / Math.max(1, nul.length);
    if (Math.abs(fnr - fpr) < gap) {
      gap = Math.abs(fnr - fpr);
      threshold = Math.round(t * 100) / 100;
      eer = (fnr + fpr) / 2;
    }
  }
  return { threshold, equalErrorRate: eer, positive, null: nul };
}
