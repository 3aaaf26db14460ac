import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { importCorpus } from "@/lib/corpus/import";
import type { CorpusInput } from "@/lib/corpus/read";
import type { PaperRecord } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { createTestDb, type TestDb } from "@/lib/db/testing";
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

/**
 * Registers before/after hooks (call it inside a describe): a fresh store holding the mini
 * corpus as "mini", and a private GRAFT_DATA_ROOT for builds and vector caches, both removed
 * afterwards. `db` is valid from the first test on.
 */
export function useMiniCorpusStore(prefix: string): { readonly db: Db; readonly databaseUrl: string } {
  let store: TestDb | undefined;
  let root = "";
  const saved = process.env.GRAFT_DATA_ROOT;
  before(async () => {
    store = await createTestDb();
    root = mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env.GRAFT_DATA_ROOT = root;
    await importCorpus(store.db, miniCorpusInput(), { corpus: "mini" });
  });
  after(async () => {
    process.env.GRAFT_DATA_ROOT = saved;
    await store?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });
  const held = (): TestDb => {
    if (!store) throw new Error("useMiniCorpusStore: the store exists only inside tests");
    return store;
  };
  return {
    get db() {
      return held().db;
    },
    /** The store's URL, for code that opens it through DATABASE_URL (the CLI). */
    get databaseUrl() {
      return held().config.url;
    },
  };
}

/** The sha256 of a graph build's graph.csr: builds that must agree byte for byte are compared by it. */
export async function graphCsrSha256(db: Db, buildId: number): Promise<string> {
  const build = await db.build.findUniqueOrThrow({ where: { id: buildId } });
  return createHash("sha256")
    .update(readFileSync(path.join(dataRoot(), build.dir, "graph.csr")))
    .digest("hex");
}
