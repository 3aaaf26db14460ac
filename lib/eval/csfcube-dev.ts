/**
 * CSFCube's dev fold (Mysore et al., NeurIPS 2021 Datasets and Benchmarks; CC BY-NC 4.0): 24
 * expert-judged "related through this facet" queries (8 per facet: background, method,
 * result), each with a pool of 88–253 candidates graded 0–3 (`relevance_adju`). Issue 17
 * measures the product's premise on it: each query's whole pool ranked through the served
 * pipeline (relatedPapers with `candidates` = the pool), restricted to the query's facet or with
 * all facets.
 *
 * The official scorer (reproduced on SPECTER's rankings: 35.43 MAP / 53.02 NDCG%20, tested):
 *   AP       grade ≥ 2 relevant, over the ranked candidates;
 *   NDCG%20  graded gains, DCG = r₁ + Σ_{i≥2} r_i / log₂ i over the top int(0.2 × n) of the n
 *            ranked candidates, the ideal DCG from the same candidates' grades sorted;
 *   the mean over queries, per facet and over all 24.
 * Only ranked candidates count, as in the official scorer: a query in its own pool (8781666,
 * result) is left out of SPECTER's ranking and of relatedPapers' (a paper is never its own
 * result), so neither ranks it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { CSFCUBE_FACET } from "@/lib/corpus/csfcube";
import type { Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { relatedOptions, relatedPapers, type RelatedOptions } from "@/lib/query";
import { idfFrom, tfidfTokens, tfidfVector } from "@/lib/text";
import { bootstrapCi } from "./metrics";

export const CSFCUBE_DEV_FACETS = ["background", "method", "result"] as const;
export type CsfcubeDevFacet = (typeof CSFCUBE_DEV_FACETS)[number];

export const CSFCUBE_ATTRIBUTION =
  'CSFCube dev fold (24 of the 50 queries): Mysore, Jasim, McCallum and Zamani, "CSFCube - A Test Collection of Computer Science Research Articles for Faceted Query by Example", NeurIPS 2021 Datasets and Benchmarks; github.com/iesl/CSFCube; licensed CC BY-NC 4.0. Scores by the official protocol (MAP with grade ≥ 2 relevant; NDCG%20 = NDCG over the top 20% of each pool).';

/** Published figures, for the report (the first two on these 24 queries, the rest on all 50). */
export const CSFCUBE_REFERENCES = [
  { label: "TF-IDF, title + abstract (CSFCube, dev fold)", map: 38.27, ndcg20: 54.66 },
  { label: "SPECTER (CSFCube, dev fold)", map: 35.43, ndcg20: 53.02 },
  { label: "SPECTER (published, all 50 queries)", map: 34.23, ndcg20: 53.28 },
  { label: "all-mpnet-base-v2 (published, all 50 queries)", map: 34.64, ndcg20: 54.94 },
  { label: "otAspire, facet-aware (published, all 50 queries)", map: 40.79, ndcg20: 61.41 },
] as const;

export interface CsfcubeQuery {
  pid: string;
  facet: CsfcubeDevFacet;
  /** The pool, in the file's order. */
  cands: string[];
  /** relevance_adju, aligned with cands. */
  grades: number[];
}

export interface CsfcubePaper {
  id: string;
  title: string;
  sentences: string[];
  labels: string[];
}

/** The 24 dev queries (a query asked for two facets is two queries), in facet then file order. */
export function readCsfcubeQueries(dir: string): CsfcubeQuery[] {
  const out: CsfcubeQuery[] = [];
  for (const facet of CSFCUBE_DEV_FACETS) {
    const anns = JSON.parse(readFileSync(path.join(dir, `dev-pid2anns-${facet}.json`), "utf8")) as Record<
      string,
      { cands: string[]; relevance_adju: number[] }
    >;
    for (const [pid, a] of Object.entries(anns)) {
      if (a.cands.length !== a.relevance_adju.length)
        throw new Error(`dev-pid2anns-${facet}.json: ${pid}: ${a.cands.length} candidates, ${a.relevance_adju.length} grades`);
      out.push({ pid, facet, cands: a.cands.map(String), grades: a.relevance_adju });
    }
  }
  return out;
}

/** SPECTER's ranking of each pool (ascending distance), keyed by facet then query. */
export function readSpecterRankings(dir: string): Record<CsfcubeDevFacet, Record<string, string[]>> {
  const out = {} as Record<CsfcubeDevFacet, Record<string, string[]>>;
  for (const facet of CSFCUBE_DEV_FACETS) {
    const raw = JSON.parse(readFileSync(path.join(dir, `specter-ranked-${facet}.json`), "utf8")) as Record<string, [string, number][]>;
    out[facet] = Object.fromEntries(Object.entries(raw).map(([q, l]) => [q, l.map(([id]) => String(id))]));
  }
  return out;
}

export function readCsfcubePapers(dir: string): Map<string, CsfcubePaper> {
  const out = new Map<string, CsfcubePaper>();
  for (const line of readFileSync(path.join(dir, "abstracts.jsonl"), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { paper_id: string | number; title: string; abstract: string[]; pred_labels?: string[] };
    out.set(String(r.paper_id), { id: String(r.paper_id), title: r.title, sentences: r.abstract, labels: r.pred_labels ?? [] });
  }
  return out;
}

// ── the official scorer ─────────────────────────────────────────────────────────────────

/** Average precision of a ranked list of grades, grade ≥ threshold relevant (0 when none is). */
export function averagePrecision(grades: readonly number[], threshold = 2): number {
  let hits = 0;
  let sum = 0;
  grades.forEach((g, i) => {
    if (g >= threshold) sum += ++hits / (i + 1);
  });
  return hits === 0 ? 0 : sum / hits;
}

/** DCG of the first k gains: r₁ + Σ_{i≥2} r_i / log₂ i. */
export function dcg(gains: readonly number[], k: number): number {
  let s = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) s += i === 0 ? gains[0] : gains[i] / Math.log2(i + 1);
  return s;
}

/** NDCG over the top int(pct × n) of a ranked list of n grades (0 when the ideal is 0). */
export function ndcgPercent(grades: readonly number[], pct = 0.2): number {
  const k = Math.floor(pct * grades.length);
  const ideal = dcg(
    [...grades].sort((a, b) => b - a),
    k,
  );
  return ideal === 0 ? 0 : dcg(grades, k) / ideal;
}

export interface QueryScore {
  pid: string;
  facet: CsfcubeDevFacet;
  ap: number;
  ndcg20: number;
  /** Pool candidates the ranking held (the query itself is not ranked). */
  ranked: number;
}

/** Scores one ranking of a query's pool: the grades of the ranked ids that are in the pool. */
export function scoreRanking(q: CsfcubeQuery, ranking: readonly string[]): QueryScore {
  const grade = new Map(q.cands.map((c, i) => [c, q.grades[i]]));
  const seen = new Set<string>();
  const grades: number[] = [];
  for (const id of ranking) {
    const g = grade.get(id);
    if (g === undefined || seen.has(id)) continue;
    seen.add(id);
    grades.push(g);
  }
  return { pid: q.pid, facet: q.facet, ap: averagePrecision(grades), ndcg20: ndcgPercent(grades), ranked: grades.length };
}

export interface Aggregate {
  queries: number;
  /** 0–100. */
  map: number;
  ndcg20: number;
  mapCi: [number, number];
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Mean AP and NDCG%20 (×100) with the 95% percentile-bootstrap interval of MAP over queries. */
export function aggregate(scores: readonly QueryScore[], seed = 17): Aggregate {
  const ci = bootstrapCi(scores, (s) => 100 * mean(s.map((x) => x.ap)), { seed });
  return { queries: scores.length, map: 100 * mean(scores.map((s) => s.ap)), ndcg20: 100 * mean(scores.map((s) => s.ndcg20)), mapCi: [ci.lower, ci.upper] };
}

/** Paired bootstrap of mean(a.ap − b.ap) × 100 over the same queries: estimate and 95% interval. */
export function pairedMapDelta(a: readonly QueryScore[], b: readonly QueryScore[], seed = 17): { delta: number; low: number; high: number } {
  const byKey = new Map(b.map((s) => [`${s.facet}/${s.pid}`, s.ap]));
  const diffs = a.map((s) => {
    const other = byKey.get(`${s.facet}/${s.pid}`);
    if (other === undefined) throw new Error(`pairedMapDelta: ${s.facet}/${s.pid} missing`);
    return s.ap - other;
  });
  const ci = bootstrapCi(diffs, (d) => 100 * mean(d), { seed });
  return { delta: ci.estimate, low: ci.lower, high: ci.upper };
}

// ── rankings ─────────────────────────────────────────────────────────────────────────────

export type FacetSetting = "restricted" | "all";

export interface CsfcubeRun {
  scores: QueryScore[];
  /** Pool candidates the retriever did not reach (ranked last, in the pool's order), summed over queries. */
  unreached: number;
  /** Queries whose paper has no item in the requested facet(s): relatedPapers answers no_facets, scored as the pool's order. */
  noFacets: string[];
  ms: number;
}

/**
 * Each query's pool ranked through relatedPapers: the query paper by its id in `corpus`,
 * `candidates` = its pool, restricted to the Graft facet of the query's facet or with all four.
 * `retriever` may name any registered retriever (evaluation variants too).
 */
export async function runCsfcube(
  db: Db,
  corpus: string,
  queries: readonly CsfcubeQuery[],
  setting: FacetSetting,
  options: { retriever?: string; fusion?: string } = {},
): Promise<CsfcubeRun> {
  const scores: QueryScore[] = [];
  const noFacets: string[] = [];
  let unreached = 0;
  const t0 = performance.now();
  for (const q of queries) {
    const facet: Facet = CSFCUBE_FACET[q.facet];
    const parsed = relatedOptions.parse({
      ...(options.fusion ? { fusion: options.fusion } : {}),
      candidates: q.cands,
      ...(setting === "restricted" ? { facets: [facet] } : {}),
    });
    const opts = { ...parsed, ...(options.retriever ? { retriever: options.retriever } : {}) } as RelatedOptions;
    try {
      const r = await relatedPapers(db, { corpus, paperId: q.pid }, opts);
      unreached += r.results.filter((x) => x.unreached).length;
      scores.push(
        scoreRanking(
          q,
          r.results.map((x) => x.externalId),
        ),
      );
    } catch (err) {
      // What a user would get: no ranking at all; scored as the pool's own order.
      if ((err as { code?: unknown }).code !== "no_facets") throw err;
      noFacets.push(`${q.facet}/${q.pid}`);
      scores.push(scoreRanking(q, q.cands));
    }
  }
  return { scores, unreached, noFacets, ms: performance.now() - t0 };
}

/**
 * The TF-IDF reference (evaluation only, not served): cosine of L2-normalised tf·idf vectors of
 * title + abstract over the whole corpus, scikit-learn's TfidfVectorizer with sublinear_tf
 * (tf = 1 + ln count; idf = ln((1 + N) / (1 + df)) + 1; tokens of two or more word characters,
 * no stopword list): the TF-IDF index's analysis (lib/text/analyzer.ts). CSFCube does not say its settings; these come closest to its 38.27 / 54.66
 * (raw counts: 31.8 / 46.2).
 */
export function tfidfRankings(papers: ReadonlyMap<string, CsfcubePaper>, queries: readonly CsfcubeQuery[]): Map<CsfcubeQuery, string[]> {
  const corpus = [...papers.values()];
  const docs = corpus.map((p) => tfidfTokens(`${p.title} ${p.sentences.join(" ")}`));
  const idf = idfFrom(docs);
  const tokens = new Map(corpus.map((p, i) => [p.id, docs[i]]));
  // A paper outside the corpus has no terms: an empty vector, cosine 0 with everything.
  const vec = (id: string): Map<string, number> => tfidfVector(tokens.get(id) ?? [], idf);
  const out = new Map<CsfcubeQuery, string[]>();
  for (const q of queries) {
    const qv = vec(q.pid);
    const scored = q.cands
      .filter((c) => c !== q.pid)
      .map((c, i) => {
        let s = 0;
        for (const [t, w] of vec(c)) s += w * (qv.get(t) ?? 0);
        return { c, s, i };
      });
    scored.sort((a, b) => b.s - a.s || a.i - b.i);
    out.set(
      q,
      scored.map((x) => x.c),
    );
  }
  return out;
}
