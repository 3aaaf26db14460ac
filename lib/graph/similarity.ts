/**
 * The item similarity behind s_f, chosen per graph build (`graft build --stage graph
 * --similarity cosine|mix[:λ]`, stored in the build's parameters and manifest) and applied the
 * same way to an unseen paper's ephemeral insertion:
 *
 *   cosine   s_f = s_cos, the max-sim of embedding cosines (maxsim.ts; the paper's definition)
 *   mix:λ    s_f = (1 − λ)·s_cos + λ·s_lex, s_lex the max-sim of TF-IDF item cosines (lexical.ts)
 *
 * Both scores are in [0, 1]. The mix is ranked exactly over a candidate pool per paper: its
 * top candidates by s_cos (the onnxruntime all-pairs kernel), by s_lex (the inverted file) and,
 * in the build, by w among citation-linked papers, each then scored exactly with both terms
 * (`mixedFacetEdges` here, `mixedQueryTopK` in topk.ts). A pair outside every candidate list would need a
 * better mix than candidates that beat it on s_cos and on s_lex separately, which rarely
 * happens with 50 candidates per list (the paper itself prunes 100 facet-score candidates to
 * 20 edges). The s_lex list is itself bounded where common words have thousands of postings
 * (lexical.ts DEFAULT_LEXICAL_BOUND: recall@20 ≥ 0.994 of the exact list at 64k papers, exact on
 * the 3k demo corpus); its candidates are rescored exactly, so a bound only ever drops pairs.
 */
import type { CitationRows } from "./citation-score";
import { FacetRowWriter, type FacetCsr } from "./csr";
import { DEFAULT_EDGE_WEIGHT, type EdgeWeightParams } from "./edge-weight";
import type { LexicalIndex } from "./lexical";
import { pairScorer, type PackedFacetItems } from "./maxsim";
import type { RankedNeighbours } from "./topk-accumulator";

export type ItemSimilarity = { readonly kind: "cosine" } | { readonly kind: "mix"; readonly lexicalWeight: number };

export const COSINE: ItemSimilarity = Object.freeze({ kind: "cosine" });

/** λ of a plain "mix". */
export const DEFAULT_LEXICAL_WEIGHT = 0.5;

/** What the graph stage builds when no similarity is named. */
export const DEFAULT_ITEM_SIMILARITY: ItemSimilarity = Object.freeze({ kind: "mix", lexicalWeight: DEFAULT_LEXICAL_WEIGHT });

/**
 * Edge weights of a mix build when none are given: w = 0.25·s + 0.75·c. Chosen on issue 17's
 * tuning half (unseen papers, LLM facets, dense-graph teacher R@20 with α 0.75 / 0.5 / 0.25 /
 * 0.1: 0.241 / 0.297 / 0.325 / 0.321): the citation-linked papers a seed leads to are what the
 * walk of an unseen paper needs, and s_mix then ranks them and fills the rows. A cosine build
 * keeps the paper's α = 0.75, β = 0.25 (DEFAULT_EDGE_WEIGHT).
 */
export const MIX_EDGE_WEIGHT: Readonly<EdgeWeightParams> = Object.freeze({ alpha: 0.25, beta: 0.75 });

/** The default α, β of a build with this similarity; β = 1 − α when only α is given. */
export function edgeWeightFor(similarity: ItemSimilarity, alpha?: number, beta?: number): EdgeWeightParams {
  const base = similarity.kind === "mix" ? MIX_EDGE_WEIGHT : DEFAULT_EDGE_WEIGHT;
  const a = alpha ?? base.alpha;
  return { alpha: a, beta: beta ?? (alpha === undefined ? base.beta : 1 - a) };
}

/** Candidates per list (s_cos, s_lex) that an unseen paper's mix is ranked over: the build's widest K. */
export const MIX_CANDIDATES = 50;

// This module stays free of onnxruntime (only types of topk.ts), so the job registry can
// validate a similarity spec without loading the kernel.

/** "cosine" | "mix" | "mix:<λ in [0, 1]>". */
export function parseItemSimilarity(spec: string): ItemSimilarity {
  const s = spec.trim().toLowerCase();
  if (s === "cosine") return COSINE;
  const m = /^mix(?::(.+))?$/.exec(s);
  if (m) {
    if (m[1] === undefined) return { kind: "mix", lexicalWeight: DEFAULT_LEXICAL_WEIGHT };
    const l = Number(m[1]);
    if (m[1].trim() !== "" && Number.isFinite(l) && l >= 0 && l <= 1) return { kind: "mix", lexicalWeight: l };
  }
  throw new Error(`similarity must be "cosine", "mix" or "mix:<λ between 0 and 1>" (λ = weight of the lexical score), got "${spec}"`);
}

/** The canonical spec string ("cosine", "mix:0.5"), as stored in build parameters. */
export function itemSimilaritySpec(s: ItemSimilarity): string {
  return s.kind === "cosine" ? "cosine" : `mix:${s.lexicalWeight}`;
}

/** The similarity a stored build used: its `similarity` parameter, or cosine for builds made before it existed. */
export function similarityOfParams(params: { similarity?: unknown }): ItemSimilarity {
  return typeof params.similarity === "string" ? parseItemSimilarity(params.similarity) : COSINE;
}

export function mixScore(lexicalWeight: number, sCos: number, sLex: number): number {
  return (1 - lexicalWeight) * sCos + lexicalWeight * sLex;
}

export interface MixedFacetInput {
  /** Top candidates by s_cos (facetTopK's `neighbours`). */
  cosine: RankedNeighbours;
  /** Top citation-linked candidates by the cosine edge weight, aux = (s_cos, c) (facetTopK's `linked`). */
  linked: RankedNeighbours | null;
  /** Top candidates by s_lex (LexicalIndex.allPairsTopK). */
  lexical: RankedNeighbours;
  dense: PackedFacetItems;
  index: LexicalIndex;
  citations: CitationRows | null;
}

export interface MixedEdgeOptions extends Partial<EdgeWeightParams> {
  k: number;
  lexicalWeight: number;
}

/**
 * One facet's top-k edges by w = α·s_mix + β·c over each paper's candidate pool (rows ranked
 * best first, ties: lower target), with s_mix stored as the facet score.
 */
export function mixedFacetEdges(input: MixedFacetInput, options: MixedEdgeOptions): FacetCsr {
  const { k, lexicalWeight } = options;
  const alpha = options.alpha ?? DEFAULT_EDGE_WEIGHT.alpha;
  const beta = options.beta ?? DEFAULT_EDGE_WEIGHT.beta;
  const { cosine, linked, lexical, dense, index, citations } = input;
  const n = cosine.numPapers;
  const cosOf = pairScorer(dense);
  const rows = new FacetRowWriter(n, k);
  const stamp = new Int32Array(n).fill(-1);
  const cStamp = new Int32Array(n).fill(-1);
  const sCos = new Float64Array(n);
  const cRow = new Float64Array(n);
  const cOf = new Float64Array(n);
  const sOf = new Float64Array(n);
  const wOf = new Float64Array(n);
  const pool: number[] = [];
  for (let a = 0; a < n; a++) {
    pool.length = 0;
    if (citations) {
      const row = citations.row(a);
      for (let e = 0; e < row.targets.length; e++) {
        cStamp[row.targets[e]] = a;
        cRow[row.targets[e]] = row.scores[e];
      }
    }
    const add = (b: number, cos: number): void => {
      if (b === a || stamp[b] === a) return;
      stamp[b] = a;
      sCos[b] = cos;
      pool.push(b);
    };
    for (let e = cosine.offsets[a]; e < cosine.offsets[a + 1]; e++) add(cosine.targets[e], cosine.scores[e]);
    if (linked) for (let e = linked.offsets[a]; e < linked.offsets[a + 1]; e++) add(linked.targets[e], linked.aux[2 * e]);
    for (let e = lexical.offsets[a]; e < lexical.offsets[a + 1]; e++) add(lexical.targets[e], NaN);
    for (const b of pool) {
      if (Number.isNaN(sCos[b])) sCos[b] = cosOf(a, b);
      const s = mixScore(lexicalWeight, sCos[b], index.pairScore(a, b));
      const c = cStamp[b] === a ? cRow[b] : 0;
      sOf[b] = s;
      cOf[b] = c;
      wOf[b] = Math.fround(alpha * s + beta * c);
    }
    pool.sort((x, y) => wOf[y] - wOf[x] || x - y);
    rows.writeRow(a, pool, wOf, sOf, cOf);
  }
  return rows.csr();
}
