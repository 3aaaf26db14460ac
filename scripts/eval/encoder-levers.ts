/**
 * The text encoder's levers in the default retriever (issue 27), on the TUNING halves only:
 *   npx tsx scripts/eval/encoder-levers.ts [--n 150] [--sets unseen-tune,later-tune] [--corpora acl-citegraph,acl-citegraph-nocite]
 *     [--variants base,whole1,...] [--source llm] [--rerank]
 * Each variant is HYBRID with other encoder settings (lib/retrieve/hybrid.ts), registered under its own
 * name and run through relatedPapers; R@20 per set, corpus and variant (a seeded sample of n queries).
 * --rerank keeps the shipped second stage (fitted without the encoder's lists); without it, the first stage alone.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { getDb } from "@/lib/db";
import { sharedDataDir } from "@/lib/paths";
import { HYBRID, hybridRetriever, type EncoderSettings } from "@/lib/retrieve/hybrid";
import { registerRetriever } from "@/lib/retrieve";
import { sampleUserPapers } from "@/lib/eval/user-papers-suite";
import { runUserPapers, userPaperQueries, userPaperRecall, type FacetSource, type UserPaperSet } from "@/lib/eval/user-papers";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "150" },
    sets: { type: "string", default: "unseen-tune,later-tune" },
    corpora: { type: "string", default: "acl-citegraph,acl-citegraph-nocite" },
    variants: { type: "string" },
    source: { type: "string", default: "llm" },
    rerank: { type: "boolean", default: false },
    seed: { type: "string", default: "1" },
  },
});

const VARIANTS: Record<string, EncoderSettings | null> = {
  base: null,
  "whole0.5": { whole: 0.5, facet: 0, expand: false },
  whole1: { whole: 1, facet: 0, expand: false },
  whole2: { whole: 2, facet: 0, expand: false },
  whole4: { whole: 4, facet: 0, expand: false },
  "facet1-whole2": { whole: 2, facet: 1, expand: false },
  "facet2-whole2": { whole: 2, facet: 2, expand: false },
  "facet1-whole4": { whole: 4, facet: 1, expand: false },
  "whole1-expand": { whole: 1, facet: 0, expand: true },
  "facet0.5": { whole: 0, facet: 0.5, expand: false },
  "facet1-whole1": { whole: 1, facet: 1, expand: false },
  "facet1-whole1-expand": { whole: 1, facet: 1, expand: true },
};
const names = values.variants ? (values.variants as string).split(",") : Object.keys(VARIANTS);
for (const name of names) {
  if (!(name in VARIANTS)) throw new Error(`unknown variant ${name}`);
  const encoder = VARIANTS[name];
  registerRetriever(
    hybridRetriever({ ...HYBRID, rerank: values.rerank ? HYBRID.rerank : null, ...(encoder ? { encoder } : { encoder: undefined }) }, `lever-${name}`),
  );
}
const db = getDb();
const dir = path.join(sharedDataDir(), "acl-citegraph");
for (const set of (values.sets as string).split(",") as UserPaperSet[]) {
  const queries = sampleUserPapers(userPaperQueries(dir, set), Number(values.n), Number(values.seed));
  for (const corpus of (values.corpora as string).split(",")) {
    for (const name of names) {
      const t0 = performance.now();
      const runs = await runUserPapers(db, corpus, queries, { retriever: `lever-${name}` }, values.source as FacetSource);
      const r = userPaperRecall(runs);
      const ms = (performance.now() - t0) / runs.length;
      console.log(
        `${set}\t${corpus}\t${values.source}\t${values.rerank ? "rerank" : "first"}\t${name}\tR@20 ${r.recall[20].toFixed(4)} [${r.ci20.low.toFixed(3)}, ${r.ci20.high.toFixed(3)}]\tR@50 ${r.recall[50].toFixed(4)}\t${ms.toFixed(0)} ms/q`,
      );
    }
  }
}
process.exit(0);
