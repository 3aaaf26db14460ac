/**
 * Text encoders as whole-paper retrievers (issue 27): cosine over title + abstract, no citation
 * graph, on the demo corpus. Measurement only: these gold sets tune nothing (the contrastive
 * encoder chose its epoch on held-out train-split citations).
 *
 *   npx tsx scripts/eval/encoder-retrieval.ts --lsa <lsa model folder> --encoders <folder>[,<folder>...] [--use-lite] [--corpus DIR]
 *
 * Query sets (lib/eval/user-papers.ts), micro recall@20 with a 95% bootstrap CI:
 *   prior work  the 212 out-of-corpus queries → the corpus papers they cite (ooc-gold.tsv), and
 *               the test-split papers → the corpus papers they cite (their own node excluded);
 *   later work  train-split papers cited by ≥ 2 test-split papers → those test papers (query excluded).
 * Retrievers: BM25 (title + abstract, stopwords), TF-IDF cosine (the --lsa model's bag of words:
 * log tf × idf, before its projection), LSA (--lsa), each encoder, RRF(BM25, encoder) (k = 60),
 * optionally USE-lite. Also embedding speed (items/s, one process) of each dense encoder.
 */
import path from "node:path";
import { defaultCorpusPath } from "@/lib/paths";
import { readCorpus } from "@/lib/corpus/read";
import { paperText, createLsaEmbedder, type LsaEmbedder, type Embedder } from "@/lib/embed";
import { recallAtKWithCi, type QueryRun } from "@/lib/eval/metrics";
import { userPaperQueries, type UserPaperQuery } from "@/lib/eval/user-papers";
import { Bm25Index } from "@/lib/retrieve";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const corpusDir = path.resolve(flag("--corpus") ?? defaultCorpusPath());
const lsaFolder = flag("--lsa");
const encoders = (flag("--encoders") ?? "").split(",").filter((s) => s.trim());
if (!lsaFolder) throw new Error("--lsa <folder> is required (the TF-IDF baseline and LSA read it)");
const K = 20;
const DEPTH = 100;
const RRF_K = 60;
const boot = { resamples: 2000, seed: 0 };

const corpus = await readCorpus(corpusDir);
const ids = corpus.papers.map((p) => p.externalId);
const index = new Map(ids.map((id, i) => [id, i]));
const docTexts = corpus.papers.map((p) => paperText(p.title, p.abstract));
const sets: Record<string, UserPaperQuery[]> = {
  "prior: ooc": userPaperQueries(corpusDir, "ooc"),
  "prior: test papers": [...userPaperQueries(corpusDir, "unseen-tune"), ...userPaperQueries(corpusDir, "unseen-report")],
  later: [...userPaperQueries(corpusDir, "later-tune"), ...userPaperQueries(corpusDir, "later-report")],
};

/** A retriever: the query paper's text (and its own corpus row, excluded) → corpus rows, best first. */
type Retrieve = (text: string, self: number) => number[];

function bm25(): Retrieve {
  const { index: bm, tokenize } = Bm25Index.fromTexts(docTexts, { stopwords: true });
  return (text, self) => bm.search(tokenize(text), DEPTH, { exclude: self }).map((h) => h.doc);
}

const topByScore = (scores: Float64Array, self: number): number[] =>
  [...scores.keys()]
    .filter((d) => d !== self)
    .sort((a, b) => scores[b] - scores[a] || a - b)
    .slice(0, DEPTH);

/** Sparse cosine through an inverted file: a query touches only its terms' postings. */
function tfidf(lsa: LsaEmbedder): Retrieve {
  const unit = (text: string) => {
    const w = lsa.termWeights(text);
    const n = Math.hypot(...w.values()) || 1;
    for (const [t, v] of w) w.set(t, v / n);
    return w;
  };
  const postings = new Map<number, [number, number][]>();
  docTexts.forEach((text, d) => {
    for (const [t, v] of unit(text)) {
      const list = postings.get(t) ?? [];
      list.push([d, v]);
      postings.set(t, list);
    }
  });
  return (text, self) => {
    const scores = new Float64Array(docTexts.length);
    for (const [t, v] of unit(text)) for (const [d, w] of postings.get(t) ?? []) scores[d] += v * w;
    return topByScore(scores, self);
  };
}

/**
 * Cosine over an encoder's unit vectors; the corpus is embedded first (timed: the encoder's
 * items/s), then every query text in one batch.
 */
async function dense(embedder: Embedder, queryTexts: string[]): Promise<{ retrieve: Retrieve; itemsPerSecond: number }> {
  const t0 = performance.now();
  const docs = await embedder.embed(docTexts);
  const itemsPerSecond = docTexts.length / ((performance.now() - t0) / 1000);
  const queries = new Map((await embedder.embed(queryTexts)).map((v, i) => [queryTexts[i], v]));
  const retrieve: Retrieve = (text, self) => {
    const q = queries.get(text) as Float32Array;
    const scores = Float64Array.from(docs, (d) => {
      let s = 0;
      for (let k = 0; k < d.length; k++) s += d[k] * q[k];
      return s;
    });
    return topByScore(scores, self);
  };
  return { retrieve, itemsPerSecond };
}

const rrf =
  (a: Retrieve, b: Retrieve): Retrieve =>
  (text, self) => {
    const score = new Map<number, number>();
    for (const list of [a(text, self), b(text, self)]) list.forEach((d, r) => score.set(d, (score.get(d) ?? 0) + 1 / (RRF_K + r + 1)));
    return [...score.keys()].sort((x, y) => (score.get(y) as number) - (score.get(x) as number) || x - y);
  };

function evaluate(retrieve: Retrieve): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, queries] of Object.entries(sets)) {
    const runs: QueryRun[] = queries.map((q) => {
      const self = index.get(q.id) ?? -1;
      return { retrieved: retrieve(paperText(q.title, q.abstract), self), gold: q.gold.map((g) => index.get(g) ?? -1).filter((g) => g >= 0) };
    });
    const ci = recallAtKWithCi(runs, K, boot);
    out[name] = `${ci.estimate.toFixed(3)} [${ci.lower.toFixed(3)}, ${ci.upper.toFixed(3)}]`;
  }
  return out;
}

const queryTexts = [...new Set(Object.values(sets).flatMap((qs) => qs.map((q) => paperText(q.title, q.abstract))))];
const setNames = Object.keys(sets);
console.log(`corpus ${ids.length} papers; queries ${setNames.map((s) => `${s} ${sets[s].length}`).join(", ")}; micro R@${K}, 95% bootstrap CI`);
console.log(["retriever", ...setNames, "embedding speed"].join(" | "));
// Each row as soon as it is measured: a slow encoder (USE-lite) at the end loses nothing before it.
const row = (name: string, r: Record<string, string>, speed = "") => console.log([name, ...setNames.map((s) => r[s]), speed].join(" | "));
const bm = bm25();
row("BM25 (title + abstract)", evaluate(bm));
const lsa = createLsaEmbedder(lsaFolder);
row("TF-IDF cosine (LSA's bag of words)", evaluate(tfidf(lsa)));
const named: [string, () => Promise<Embedder>][] = [[`LSA-${lsa.dim} ${lsaFolder}`, async () => lsa]];
for (const f of encoders) named.push([`encoder ${f}`, async () => createLsaEmbedder(f)]);
if (args.includes("--use-lite")) named.push(["USE-lite", async () => (await import("@/lib/embed/use-lite")).createUseLiteEmbedder()]);
for (const [i, [name, load]] of named.entries()) {
  const d = await dense(await load(), queryTexts);
  row(name, evaluate(d.retrieve), `${Math.round(d.itemsPerSecond)} items/s`);
  if (i > 0) row(`RRF(BM25, ${name})`, evaluate(rrf(bm, d.retrieve)));
}
