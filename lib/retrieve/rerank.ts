/**
 * A learned second stage for the default retriever (issue 17): the fused pool's head is re-ordered
 * by a logistic model over what the first stage already knows of each candidate — its fused and per-facet ranks, its whole-paper BM25 and TF-IDF match, the
 * share of its title's words the query uses, how many lexical seeds cite it, how often it is cited with them, how often the corpus cites it — and what the query's record may say
 * beside its text: its authors (shared with the candidate's; their corpus papers citing it). Not the year: a candidate's age
 * pushed down papers newer than the query, which a scientist exploring related work wants to see,
 * and fitted on train papers without newer candidates it has no answer for them.
 * Candidates keep their provenance; only their order changes.
 *
 * The weights are fitted on train-split papers queried as unseen papers, gold their corpus
 * references (train-split citations only; `npm run train:rerank`), and chosen on the tuning half
 * of the unseen test papers, like every other setting of the default. Gradient-boosted trees
 * (LightGBM's LambdaMART) did better on that half (R@20 0.578 / 0.562 against 0.559 / 0.541 for this
 * model without its title and seed co-citation features, 0.565 / 0.548 with them) but worse on the out-of-corpus
 * papers (0.542 against 0.573 with LLM facets): they were not kept. Tried and not kept (tuning half, same fit):
 * bibliographic coupling with the seeds (0.547 / 0.529), the query's authors' citations of the candidate's authors and
 * seeds sharing its authors (+0.000), deeper seed votes (200 seeds), BM25 with the query's facet items, LSA cosine of the
 * two abstracts (−0.002 / +0.006), pairwise products of the main features (−0.004 / −0.005), citation links and
 * co-citation with the fused head (−0.001 to −0.006), the query authors' co-authors' citations (+0.000). Each feature
 * beside its value relative to the head's largest reached 0.570 / 0.552 there but did not carry over (report half
 * 0.577 / 0.564, set 1 0.606 / 0.594, against 0.578 / 0.563 and 0.613 / 0.604 without): gains of this size on the
 * tuning half are the choice's noise. With those copies, Porter-stemmed tokens in the first stage: 0.569 / 0.555.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import type { FusedResult } from "@/lib/fusion";
import { referenceIndex, SEED_EXPANSION, seedsMedianYear, seedVotes, type ReferenceIndex } from "./citation-expansion";
import type { Bm25Hit } from "./bm25-index";
import type { TfidfHit } from "./tfidf-index";

const BASE_FEATURES = [
  "fusedScore",
  "fusedRank",
  ...FACETS,
  "facetCount",
  "wholeRank",
  "bm25",
  "tfidf",
  "seedVote",
  "seedCiters",
  "citedBy",
  "coCited",
  "dense",
  "sharedAuthors",
  "authorsCite",
  "titleMatch",
  "coCitedSeeds",
  "laterVote",
  "laterSeeds",
  "yearDelta",
  "newer",
  "citedByYear",
  "laterVoteNewer",
  "seedVoteOlder",
  "encoder",
  "encoderRel",
  "encoderNewer",
] as const;

/**
 * Features that are another feature for newer candidates only (0 for the others): a linear model
 * then weighs the evidence for later work on its own (a paper citing the query's field is not
 * ranked as one the query cites), as two models on one scale would.
 */
export const NEWER_OF = {
  fusedScoreNewer: "fusedScore",
  wholeRankNewer: "wholeRank",
  bm25Newer: "bm25",
  tfidfNewer: "tfidf",
  seedVoteNewer: "seedVote",
  citedByNewer: "citedBy",
  coCitedNewer: "coCited",
  coCitedSeedsNewer: "coCitedSeeds",
  laterSeedsNewer: "laterSeeds",
  titleMatchNewer: "titleMatch",
  encoderRelNewer: "encoderRel",
} as const satisfies Record<string, (typeof BASE_FEATURES)[number]>;

export const RERANK_FEATURES = [...BASE_FEATURES, ...(Object.keys(NEWER_OF) as (keyof typeof NEWER_OF)[])] as const;
export type RerankFeature = (typeof RERANK_FEATURES)[number];

/** A row's NEWER_OF columns from their parents (a row by feature name; `newer` is 0 or 1). */
export function withNewerInteractions(row: Record<string, number>): Record<string, number> {
  for (const [name, parent] of Object.entries(NEWER_OF)) row[name] = row.newer * (row[parent] ?? 0);
  return row;
}

/** A fitted model: standardisation, weights in RERANK_FEATURES order, and the head it re-orders. */
export interface RerankModel {
  features: readonly string[];
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
  /** How many of the fused pool's first results are re-ordered (the rest follow unchanged). */
  depth: number;
  /** A hidden tanh layer beside the linear terms (a small MLP; lib/retrieve/rerank-mlp.ts fits it). */
  hidden?: RerankHidden;
}

/** Hidden units over the same standardised features: unit k adds out[k]·tanh(bias[k] + weights[k]·x). */
export interface RerankHidden {
  weights: number[][];
  bias: number[];
  out: number[];
}

/** What the features read of one query: its whole-paper matches and the corpus's citations. */
export interface RerankEvidence {
  /** BM25 hits of the whole query paper, best first, without the query's own node (the lexical seeds are their head). */
  bm25: readonly Bm25Hit[];
  /** TF-IDF cosine hits of the whole query paper. */
  tfidf: readonly TfidfHit[];
  references: ReferenceIndex;
  /** How many corpus papers cite each node. */
  citedBy: Int32Array;
  /** Node → the corpus nodes that cite it (the reference graph reversed). */
  citers: ReferenceIndex;
  /** The query's item unit vectors per facet, and a candidate's (cosine = dot product). */
  queryVectors: Partial<Record<Facet, readonly Float32Array[]>>;
  vectorsOf(f: Facet, node: number): readonly Float32Array[];
  /** The query's own node (a stored paper, or an evaluation's excluded one): its citations do not count. */
  queryNode: number | null;
  /** Lexical seeds that vote (SEED_EXPANSION.seeds). */
  seeds: number;
  /** The query's authors as its record names them (none for pasted text). */
  queryAuthors: readonly string[];
  /** A corpus paper's authors and year. */
  paper(node: number): { authors: readonly string[]; year: number | null };
  /** The query's year when known; otherwise the direction features read the seeds' median year. */
  queryYear: number | null;
  /** How often the corpus cites each node over the mean for papers of its year (popularity within its cohort). */
  citedByYear: Float32Array;
  /** The corpus papers of each author (authorKey), for what the query's authors have cited before. */
  papersByAuthor: ReadonlyMap<string, readonly number[]>;
  /** Papers treated as absent (an evaluation's hidden ones): their citations do not count. */
  hidden: ReadonlySet<number>;
  /** The query's content words, and a candidate's title words (the same tokenizer). */
  queryTokens: ReadonlySet<string>;
  titleTokens(node: number): readonly string[];
  /** The text encoder's cosine between the whole query paper and a candidate, and the best over the corpus (null: no encoder). */
  encoder: { cosine(node: number): number; best: number } | null;
}

/** How many corpus papers cite each node (in-degree of the reference graph). */
export function citedByCounts(references: ReferenceIndex): Int32Array {
  const out = new Int32Array(references.offsets.length - 1);
  for (const d of references.refs) out[d]++;
  return out;
}

function cites(references: ReferenceIndex, from: number, to: number): boolean {
  // refs of a node are sorted (referenceIndex), so a binary search.
  let lo = references.offsets[from];
  let hi = references.offsets[from + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = references.refs[mid];
    if (v === to) return true;
    if (v < to) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Each node's citations over the mean of its publication year's papers (1 = a typical paper of its year). */
export function citedByPerYear(citedBy: Int32Array, years: (node: number) => number | null): Float32Array {
  const sum = new Map<number, number>();
  const count = new Map<number, number>();
  for (let n = 0; n < citedBy.length; n++) {
    const y = years(n) ?? 0;
    sum.set(y, (sum.get(y) ?? 0) + citedBy[n]);
    count.set(y, (count.get(y) ?? 0) + 1);
  }
  const out = new Float32Array(citedBy.length);
  for (let n = 0; n < citedBy.length; n++) {
    const y = years(n) ?? 0;
    const mean = (sum.get(y) ?? 0) / (count.get(y) ?? 1);
    out[n] = mean > 0 ? citedBy[n] / mean : 0;
  }
  return out;
}

/** The year the direction features measure from: the query's, or else its lexical seeds' median. */
export function referenceYear(ev: Pick<RerankEvidence, "queryYear" | "bm25" | "seeds" | "paper">): number | null {
  return ev.queryYear || seedsMedianYear(ev.bm25, (n) => ev.paper(n).year, new Set(), ev.seeds);
}

/** The citation graph reversed: node → the nodes citing it. */
export function citersIndex(references: ReferenceIndex): ReferenceIndex {
  const pairs: [number, number][] = [];
  const n = references.offsets.length - 1;
  for (let a = 0; a < n; a++) for (let e = references.offsets[a]; e < references.offsets[a + 1]; e++) pairs.push([references.refs[e], a]);
  return referenceIndex(n, pairs);
}

/** Papers cited together with the head's first results (each result's share 1/rank), the query's own citations aside. */
function coCitation(head: readonly FusedResult[], ev: RerankEvidence, top: number): Map<number, number> {
  const out = new Map<number, number>();
  head.slice(0, top).forEach((c, i) => {
    for (let e = ev.citers.offsets[c.paper]; e < ev.citers.offsets[c.paper + 1]; e++) {
      const citer = ev.citers.refs[e];
      if (citer === ev.queryNode) continue;
      for (let r = ev.references.offsets[citer]; r < ev.references.offsets[citer + 1]; r++) {
        const d = ev.references.refs[r];
        if (d !== c.paper) out.set(d, (out.get(d) ?? 0) + 1 / (i + 1));
      }
    }
  });
  return out;
}

/** Mean over the query's facets of the best cosine between its items and the candidate's items of that facet. */
function denseFacetMatch(ev: RerankEvidence, node: number): number {
  let sum = 0;
  let facets = 0;
  for (const f of FACETS) {
    const qs = ev.queryVectors[f] ?? [];
    if (qs.length === 0) continue;
    facets++;
    let best = 0;
    for (const v of ev.vectorsOf(f, node))
      for (const q of qs) {
        let dot = 0;
        for (let j = 0; j < q.length; j++) dot += q[j] * v[j];
        if (dot > best) best = dot;
      }
    sum += best;
  }
  return facets > 0 ? sum / facets : 0;
}

/** Author names compared without case, accents or punctuation ("Gómez, J." and "gomez j" are one). */
export function authorKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

function sharedAuthors(query: ReadonlySet<string>, authors: readonly string[]): number {
  let n = 0;
  for (const a of authors) if (query.has(authorKey(a))) n++;
  return n;
}

/** The corpus papers of each author, by authorKey. */
export function papersByAuthor(papers: readonly { authors: readonly string[] }[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  papers.forEach((p, node) => {
    for (const a of new Set(p.authors.map(authorKey).filter(Boolean))) {
      const list = out.get(a);
      if (list) list.push(node);
      else out.set(a, [node]);
    }
  });
  return out;
}

/** How many corpus papers by the query's authors cite each node (authors re-cite what they cited before). */
function citedByQueryAuthors(authors: ReadonlySet<string>, ev: RerankEvidence): Map<number, number> {
  const own = new Set<number>();
  for (const a of authors) for (const node of ev.papersByAuthor.get(a) ?? []) own.add(node);
  own.delete(ev.queryNode ?? -1);
  const out = new Map<number, number>();
  for (const p of own) {
    if (ev.hidden.has(p)) continue;
    for (let e = ev.references.offsets[p]; e < ev.references.offsets[p + 1]; e++) out.set(ev.references.refs[e], (out.get(ev.references.refs[e]) ?? 0) + 1);
  }
  return out;
}

/** Papers cited together with the lexical seeds (each seed's share 1/rank), the query's own citations aside. */
function coCitedWithSeeds(ev: RerankEvidence, top: number): Map<number, number> {
  const out = new Map<number, number>();
  ev.bm25.slice(0, top).forEach((h, i) => {
    for (let e = ev.citers.offsets[h.doc]; e < ev.citers.offsets[h.doc + 1]; e++) {
      const citer = ev.citers.refs[e];
      if (citer === ev.queryNode || ev.hidden.has(citer)) continue;
      for (let r = ev.references.offsets[citer]; r < ev.references.offsets[citer + 1]; r++) {
        const d = ev.references.refs[r];
        if (d !== h.doc) out.set(d, (out.get(d) ?? 0) + 1 / (i + 1));
      }
    }
  });
  return out;
}

/** Share of the candidate's title words that the query uses. */
function titleMatch(ev: RerankEvidence, node: number): number {
  const words = ev.titleTokens(node);
  if (words.length === 0) return 0;
  let n = 0;
  for (const w of words) if (ev.queryTokens.has(w)) n++;
  return n / words.length;
}

/** One feature row per result of `head`, in RERANK_FEATURES order. */
export function rerankFeatures(head: readonly FusedResult[], ev: RerankEvidence): number[][] {
  const topBm25 = ev.bm25[0]?.score ?? 1;
  const bm25 = new Map(ev.bm25.map((h) => [h.doc, h.score / topBm25]));
  const tfidf = new Map(ev.tfidf.map((h) => [h.doc, h.score]));
  // The query's own node is never a seed (hybridRerankRows leaves it out of the hits).
  const { votes: vote, citers, maxVote: largestVote } = seedVotes(ev.bm25, ev.references, { seeds: ev.seeds, power: SEED_EXPANSION.power });
  const maxVote = Math.max(1e-9, largestVote);
  const coCited = coCitation(head, ev, 10);
  const topFused = head[0]?.score || 1;
  const queryAuthors = new Set(ev.queryAuthors.map(authorKey).filter(Boolean));
  const authorsCite = citedByQueryAuthors(queryAuthors, ev);
  const coCitedSeeds = coCitedWithSeeds(ev, 10);
  // Later work: the seeds' votes for the papers citing them (the reversed graph), as for earlier work.
  const later = seedVotes(ev.bm25, ev.citers, { seeds: ev.seeds, power: SEED_EXPANSION.power });
  const maxLater = Math.max(1e-9, later.maxVote);
  const year0 = referenceYear(ev);
  return head.map((r, i) => {
    const meta = ev.paper(r.paper);
    const rankOf = (f: Facet) => r.provenance.find((p) => p.facet === f)?.rank;
    const inv = (rank: number | undefined) => (rank ? 1 / Math.sqrt(rank) : 0);
    // The query's own citations must not make its references look popular (set 2's gold).
    const own = ev.queryNode !== null && cites(ev.references, ev.queryNode, r.paper) ? 1 : 0;
    const cosine = ev.encoder ? ev.encoder.cosine(r.paper) : 0;
    const row: Record<string, number> = {
      fusedScore: r.score / topFused,
      fusedRank: 1 / Math.log2(2 + i),
      problems: inv(rankOf("problems")),
      methods: inv(rankOf("methods")),
      results: inv(rankOf("results")),
      contributions: inv(rankOf("contributions")),
      facetCount: r.provenance.length / FACETS.length,
      wholeRank: inv(r.wholePaper?.rank),
      bm25: bm25.get(r.paper) ?? 0,
      tfidf: tfidf.get(r.paper) ?? 0,
      seedVote: (vote.get(r.paper) ?? 0) / maxVote,
      seedCiters: Math.log1p(citers.get(r.paper) ?? 0),
      citedBy: Math.log1p(ev.citedBy[r.paper] - own),
      coCited: Math.log1p(coCited.get(r.paper) ?? 0),
      dense: denseFacetMatch(ev, r.paper),
      sharedAuthors: sharedAuthors(queryAuthors, meta.authors),
      authorsCite: authorsCite.get(r.paper) ?? 0,
      titleMatch: titleMatch(ev, r.paper),
      coCitedSeeds: Math.log1p(coCitedSeeds.get(r.paper) ?? 0),
      laterVote: (later.votes.get(r.paper) ?? 0) / maxLater,
      laterSeeds: Math.log1p(later.citers.get(r.paper) ?? 0),
      yearDelta: year0 && meta.year ? Math.max(-8, Math.min(8, meta.year - year0)) : 0,
      newer: year0 && meta.year && meta.year > year0 ? 1 : 0,
      // A paper citing the seeds is later work only when it is newer; one the seeds cite, earlier work only when older.
      laterVoteNewer: year0 && meta.year && meta.year > year0 ? (later.votes.get(r.paper) ?? 0) / maxLater : 0,
      seedVoteOlder: year0 && meta.year && meta.year <= year0 ? (vote.get(r.paper) ?? 0) / maxVote : 0,
      citedByYear: Math.log1p(ev.citedBy[r.paper] > 0 ? (ev.citedByYear[r.paper] * (ev.citedBy[r.paper] - own)) / ev.citedBy[r.paper] : 0),
      encoder: cosine,
      encoderRel: ev.encoder && ev.encoder.best > 0 ? cosine / ev.encoder.best : 0,
      // Text alike and newer: later work that need not cite the seeds.
      encoderNewer: year0 && meta.year && meta.year > year0 ? cosine : 0,
    };
    withNewerInteractions(row);
    return RERANK_FEATURES.map((f) => row[f]);
  });
}

/** Where each of a model's features sits in a RERANK_FEATURES row (a model fitted on fewer features still reads today's rows). */
const columnsOf = (model: RerankModel): number[] => model.features.map((f) => (RERANK_FEATURES as readonly string[]).indexOf(f));

/** The model's logit for one feature row (in RERANK_FEATURES order). */
export function rerankScore(model: RerankModel, row: readonly number[], columns: readonly number[] = columnsOf(model)): number {
  let z = model.bias;
  for (let j = 0; j < columns.length; j++) z += (model.weights[j] * ((row[columns[j]] ?? 0) - model.mean[j])) / model.scale[j];
  if (!model.hidden) return z;
  return (
    z +
    hiddenScore(
      model.hidden,
      columns.map((c, j) => ((row[c] ?? 0) - model.mean[j]) / model.scale[j]),
    )
  );
}

/** The hidden layer's share of the logit for standardised features `x`. */
export function hiddenScore(h: RerankHidden, x: readonly number[]): number {
  let z = 0;
  for (let k = 0; k < h.out.length; k++) {
    let a = h.bias[k];
    const w = h.weights[k];
    for (let j = 0; j < x.length; j++) a += w[j] * x[j];
    z += h.out[k] * Math.tanh(a);
  }
  return z;
}

/**
 * The fused results with their first `model.depth` re-ordered by the model (ties keep the fused
 * order); `rows` are rerankFeatures of that head. Scores become the model's logits there.
 */
export function learnedRerank(fused: readonly FusedResult[], rows: readonly (readonly number[])[], model: RerankModel): FusedResult[] {
  const columns = columnsOf(model);
  const head = fused.slice(0, rows.length).map((r, i) => ({ r, z: rerankScore(model, rows[i], columns), i }));
  head.sort((a, b) => b.z - a.z || a.i - b.i);
  return [...head.map(({ r }) => r), ...fused.slice(rows.length)];
}

/** One training query: the feature rows of its fused head and whether each is gold. */
export interface RerankTrainingQuery {
  rows: readonly (readonly number[])[];
  labels: readonly number[];
}

/**
 * Pairwise logistic regression (RankNet with a linear scorer) with an L2 penalty: within each
 * query, every gold candidate against `negatives` non-gold ones drawn with a fixed seed, on
 * standardised features, by full-batch gradient descent from zero. Pairwise, because only the
 * order within a query matters (a pointwise fit spends itself on queries' base rates).
 */
export function fitRerankModel(
  queries: readonly RerankTrainingQuery[],
  options: { depth: number; l2?: number; steps?: number; rate?: number; negatives?: number; seed?: number },
): RerankModel {
  const m = RERANK_FEATURES.length;
  const { mean, scale } = standardisation(queries);
  const { l2 = 1e-3, steps = 300, rate = 0.5, negatives = 30, seed = 1 } = options;
  const diffs = rankingPairs(queries, negatives, seed).map(([p, o]) => p.map((v, j) => (v - o[j]) / scale[j]));
  const w = new Array<number>(m).fill(0);
  for (let step = 0; step < steps && diffs.length > 0; step++) {
    const g = new Array<number>(m).fill(0);
    for (const d of diffs) {
      let z = 0;
      for (let j = 0; j < m; j++) z += w[j] * d[j];
      const err = 1 / (1 + Math.exp(-z)) - 1;
      for (let j = 0; j < m; j++) g[j] += err * d[j];
    }
    for (let j = 0; j < m; j++) w[j] -= rate * (g[j] / diffs.length + l2 * w[j]);
  }
  return { features: [...RERANK_FEATURES], mean, scale, weights: w, bias: 0, depth: options.depth };
}

/** Each feature's mean and standard deviation over the training rows (the model's standardisation). */
export function standardisation(queries: readonly RerankTrainingQuery[]): { mean: number[]; scale: number[] } {
  const m = RERANK_FEATURES.length;
  const all = queries.flatMap((q) => q.rows);
  const n = Math.max(1, all.length);
  const mean = Array.from({ length: m }, (_, j) => all.reduce((s, r) => s + r[j], 0) / n);
  const scale = mean.map((mu, j) => Math.sqrt(all.reduce((s, r) => s + (r[j] - mu) ** 2, 0) / n) || 1);
  return { mean, scale };
}

/** Within each query, every gold row against `negatives` non-gold rows drawn with a fixed seed. */
export function rankingPairs(queries: readonly RerankTrainingQuery[], negatives: number, seed: number): [readonly number[], readonly number[]][] {
  let state = seed >>> 0 || 1;
  const draw = (k: number) => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) % k;
  const pairs: [readonly number[], readonly number[]][] = [];
  for (const q of queries) {
    const pos = q.labels.flatMap((l, i) => (l > 0 ? [i] : []));
    const neg = q.labels.flatMap((l, i) => (l > 0 ? [] : [i]));
    if (neg.length === 0) continue;
    for (const p of pos) for (let t = 0; t < Math.min(negatives, neg.length); t++) pairs.push([q.rows[p], q.rows[neg[draw(neg.length)]]]);
  }
  return pairs;
}
