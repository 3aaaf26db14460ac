import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { importCorpus } from "@/lib/corpus/import";
import type { CorpusInput } from "@/lib/corpus/read";
import type { PaperRecord } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { type TestStore, useTestStore } from "@/lib/db/testing";
import { dataRoot } from "@/lib/paths";

// A six-paper corpus in three topical pairs (0-1 translation, 2-3 entity recognition,
// 4-5 sentiment), with bibliographic coupling inside the first two pairs: small enough for
// tests that run the real embedder and the real graph build.

const topics = [
  ["neural machine translation quality", "attention-based encoder-decoder for translation", "BLEU improves by two points", "a stronger translation model"],
  [
    "low-resource machine translation",
    "back-translation of monolingual data",
    "gains on low-resource language pairs",
    "a data augmentation recipe for translation",
  ],
  ["named entity recognition in tweets", "a CRF tagger with word clusters", "F1 improves on noisy social media text", "an entity tagger for tweets"],
  ["named entity recognition in clinical notes", "a BiLSTM-CRF sequence tagger", "state-of-the-art F1 on biomedical NER", "a biomedical entity recogniser"],
  ["sentiment analysis of product reviews", "aspect-level attention over reviews", "accuracy gains on review sentiment", "an aspect sentiment model"],
  ["opinion mining in customer reviews", "lexicon features for polarity", "better polarity classification", "a sentiment lexicon"],
];

export const miniPapers: PaperRecord[] = topics.map(([p, m, r, c], i) => ({
  externalId: `P${i}`,
  title: `Paper ${i}`,
  abstract: `${p}. ${m}.`,
  fullText: null,
  year: 2018 + (i % 3),
  venue: "ACL",
  authors: [],
  split: "train",
  facets: { problems: [p], methods: [m], results: [r], contributions: [c] },
}));

export function miniCorpusInput(): CorpusInput {
  return {
    files: { papers: "mini/papers.jsonl", citations: "mini/citations.tsv", queries: null, queryGold: null },
    papers: miniPapers,
    citations: [
      { citing: "P0", cited: "P5" },
      { citing: "P1", cited: "P5" },
      { citing: "P2", cited: "P4" },
      { citing: "P3", cited: "P4" },
    ],
    queries: [],
    queryGold: [],
    skipped: [],
  };
}

/** A fresh store holding the mini corpus as "mini", with a private GRAFT_DATA_ROOT (see useTestStore). */
export function useMiniCorpusStore(prefix: string): TestStore {
  return useTestStore(prefix, { setup: (db) => importCorpus(db, miniCorpusInput(), { corpus: "mini" }) });
}

/** The sha256 of a graph build's graph.csr: builds that must agree byte for byte are compared by it. */
export async function graphCsrSha256(db: Db, buildId: number): Promise<string> {
  const build = await db.build.findUniqueOrThrow({ where: { id: buildId } });
  return createHash("sha256")
    .update(readFileSync(path.join(dataRoot(), build.dir, "graph.csr")))
    .digest("hex");
}
