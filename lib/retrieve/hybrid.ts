/**
 * The default retriever ("hybrid", issue 17): lexical seeds and citation expansion per facet,
 * plus one whole-paper list; the generative retriever's lists can be fused into each facet
 * (w_gen > 0, when the corpus has a trained model), which the shipped model does not pay for yet.
 *
 *   per facet f:  L_f = RRF( citationExpansion(BM25(items_f)) , w_gen · graft_f )   (w_gen 0 by default)
 *   whole paper:  citationExpansion(BM25(title + abstract)) → ctx.wholePaper
 *   second stage: the fused pool's head re-ordered by a learned model (./rerank.ts, RERANK_MODEL)
 *
 * Each facet list is retrieved with that facet's items only, so a result's facets still say
 * which facet(s) of the query surfaced it; the whole-paper list is fused beside them
 * (lib/query/related.ts) and said apart in the provenance.
 *
 * Restricted to some facets ("related through its methods"), there is no whole-paper list, and
 * each requested facet f compares facet with facet:
 *   L_f = RRF( w_l · citationExpansion(BM25(items_f)) , w_f · TF-IDF(items_f → their items_f) ,
 *              w_w · TF-IDF(title + abstract → theirs), over the papers the first two reached ,
 *              w_gen · graft_f )
 * The whole paper ranks the papers the facet's words reached (a method shared within one's own
 * field before a method shared across fields) but adds none, so every result is still one that
 * facet surfaced. CSFCube's dev fold (24 expert-judged "related through this facet" queries):
 * restricted MAP 31.9 with L_f alone, below all facets' 36.7; 41.2 with these lists (RESTRICTED).
 */
import type { Facet } from "@/lib/corpus";
import type { FusedResult } from "@/lib/fusion";
import { createHash } from "node:crypto";
import { citationExpansion, referenceIndex, SEED_EXPANSION, seedsMedianYear, type LaterWorkHop, type ReferenceIndex } from "./citation-expansion";
import { citedByCounts, citedByPerYear, citersIndex, learnedRerank, papersByAuthor, rerankFeatures, type RerankModel } from "./rerank";
import { RERANK_MODEL } from "./rerank-model";
import { generativeFacetCandidates, graftRetriever } from "./graft";
import { paperText, paperTfidf, type PaperText } from "./paper-text";
import { vectorsOf } from "./graph-store";
import { tfidfTokens } from "@/lib/text";
import type { FacetCandidate, FacetCandidateLists, RetrieveContext, Retriever } from "./retriever";
import type { Bm25Hit } from "./bm25-index";
import { encoderEvidence, encoderSearch, paperEncoder, type PaperEncoder } from "./text-encoder";

export interface HybridSettings {
  /** Weight of the generative list beside the expansion list in each facet (0: not decoded). */
  generativeWeight: number;
  /**
   * An unseen paper's generative list is the graft retriever's whole answer (the generated papers
   * and the query's ephemeral edges walking the typed graph), not the decoded papers alone.
   */
  generativeWalk?: boolean;
  /** RRF constant of the per-facet merge. */
  k: number;
  /** RRF weight of the whole-paper list beside the facet lists (each weight 1) in the final fusion. */
  wholePaperWeight: number;
  /** The RRF weights of a facet's list when the request restricts the facets (null: as unrestricted). */
  restricted: RestrictedSettings | null;
  /** The learned second stage over the fused pool (null: the fused order stands). Not applied to restricted facets. */
  rerank: RerankModel | null;
  /** Weight of the seeds' votes for the papers citing them (later work) beside their votes for what they cite (0: earlier work only). */
  laterWeight?: number;
  /** The text encoder's lists (./text-encoder.ts; none when GRAFT_TEXT_ENCODER is off). */
  encoder?: EncoderSettings;
}

export interface EncoderSettings {
  /** RRF weight of the encoder's whole-paper list beside the lexical one (weight 1) in the whole-paper list. */
  whole: number;
  /** RRF weight of the encoder's list of a facet's items beside that facet's lexical list (weight 1). */
  facet: number;
  /** The encoder's hits seed citation expansion as BM25's do (false: the hits alone). */
  expand: boolean;
}

export interface RestrictedSettings {
  /** The expansion list of the facet's items against whole papers (the unrestricted facet list). */
  lexical: number;
  /** TF-IDF of the facet's items against each paper's items of the same facet. */
  facet: number;
  /** TF-IDF of the whole query paper against whole papers, over the papers the two lists above reached. */
  whole: number;
}

/**
 * Chosen on CSFCube's dev fold (the only facet-judged set: 24 queries, so ±2 MAP is noise; its
 * other 26 queries never looked at), CSFCube's sentence labels as facets, each query's pool
 * re-ranked through relatedPapers (`npm run eval:csfcube`), MAP over the 24 restricted to the
 * query's facet: L_f alone 31.9 (all facets 36.7); lexical/facet/whole 0.5/1/1 41.2, 0/1/1 41.3,
 * 1/1/1 40.5, 0.5/1/0.5 40.0, 0.5/1/1.5 41.6, 0.5/1/2 41.8, without the facet-to-facet list
 * (1/0/1) 36.7. Adding USE-lite item similarity as a fourth list lowered MAP (-1.7 at weight 0.5).
 */
export const RESTRICTED: RestrictedSettings = { lexical: 0.5, facet: 1, whole: 1 };

/**
 * Chosen on the tuning half of the unseen test papers (issue 17). Whole-paper weight 1/2/4/8/16:
 * R@20 0.526/0.532/0.525/0.520/0.513. The generative lists do not pay (graft eval --suite
 * user-papers, mix graph, tuning half, R@20 without / with weight 1: LLM facets 0.532 / 0.519,
 * offline facets 0.502 / 0.503; the graft retriever's walked lists instead: LLM 0.526), and decoding
 * them is most of a pasted paper's latency, so the default leaves them out; generativeWeight > 0
 * (the evaluation's "plus the generative lists" row) fuses them back.
 */
/**
 * The text encoder's lists, chosen on the tuning halves of sets 2 and 3 (150 queries each, LLM
 * facets, first stage alone; scripts/eval/encoder-levers.ts), with and without the corpus's
 * citations. R@20 set 2 / set 3, with citations; without: none 0.464 / 0.256; 0.263 / 0.261.
 * Whole-paper list at weight 1: 0.467 / 0.276; 0.277 / 0.289 (2 and 4: no better). Its hits as
 * expansion seeds: 0.465 / 0.257. Also one list per facet (weight 1): 0.399 / 0.282; 0.291 / 0.274
 * (the facet lists lose their precision). The second stage reads its cosine (rerank.ts).
 */
export const ENCODER: EncoderSettings = { whole: 1, facet: 0, expand: false };

export const HYBRID: HybridSettings = {
  generativeWeight: 0,
  k: 60,
  wholePaperWeight: 2,
  restricted: RESTRICTED,
  rerank: RERANK_MODEL,
  laterWeight: 0.5,
  encoder: ENCODER,
};

/** The lexical hits of one query text (the seeds are their head). */
const lexicalHits = (text: PaperText, query: string, pool: number): Bm25Hit[] => text.index.search(text.queryTokens(query), Math.max(pool, 200));

/** The expansion list of one query text's hits, without the query's own node. */
function expansionList(text: PaperText, hits: readonly Bm25Hit[], pool: number, never: ReadonlySet<number>, later: LaterWorkHop | null): FacetCandidate[] {
  return citationExpansion(hits, text.references, pool, never, SEED_EXPANSION, later).map((c) => ({ paper: c.paper, score: c.score }));
}

/** The later-work hop of a query (null when the settings give it no weight). */
function laterHop(ctx: RetrieveContext, text: PaperText, settings: HybridSettings): LaterWorkHop | null {
  const weight = settings.laterWeight ?? 0;
  return weight > 0 ? { citers: visibleCitations(ctx, text).citers, weight } : null;
}

/** The text encoder's list of one query text: its nearest papers, or the citation expansion they seed. */
function encoderList(
  pe: PaperEncoder,
  text: PaperText,
  query: string,
  pool: number,
  never: ReadonlySet<number>,
  later: LaterWorkHop | null,
  expand: boolean,
): FacetCandidate[] {
  const hits = encoderSearch(pe, query, Math.max(pool, 200), never);
  return expand ? expansionList(text, hits, pool, never, later) : hits.slice(0, pool).map((h) => ({ paper: h.doc, score: h.score }));
}

/**
 * Reciprocal-rank merge of candidate lists (best first, repeats allowed): a paper scores
 * Σ w / (k + rank) over the lists that hold it, ranks counting unique papers; the candidate
 * record kept is the one of the list that contributed most, so its provenance (query item, DocID)
 * travels with it.
 */
export function mergeCandidateLists(lists: readonly { list: readonly FacetCandidate[]; weight: number }[], k: number, pool: number): FacetCandidate[] {
  const acc = new Map<number, { score: number; best: number; candidate: FacetCandidate }>();
  for (const { list, weight } of lists) {
    if (!(weight > 0)) continue;
    const seen = new Set<number>();
    for (const c of list) {
      if (seen.has(c.paper)) continue;
      seen.add(c.paper);
      const term = weight / (k + seen.size);
      const a = acc.get(c.paper);
      if (!a) acc.set(c.paper, { score: term, best: term, candidate: c });
      else {
        a.score += term;
        if (term > a.best) Object.assign(a, { best: term, candidate: c });
      }
    }
  }
  return [...acc.values()]
    .sort((x, y) => y.score - x.score || x.candidate.paper - y.candidate.paper)
    .slice(0, pool)
    .map((a) => ({ ...a.candidate, score: a.score }));
}

async function generativeLists(ctx: RetrieveContext, settings: HybridSettings): Promise<FacetCandidateLists> {
  if (!(settings.generativeWeight > 0)) return {};
  try {
    if (settings.generativeWalk) return await graftRetriever.retrieve({ ...ctx, queryEdges: {} });
    return await generativeFacetCandidates(ctx);
  } catch (err) {
    // No trained model for this corpus (or one for another embedder): the lexical lists stand alone.
    if ((err as { code?: unknown } | null)?.code === "not_ready") return {};
    throw err;
  }
}

/**
 * The corpus's citations as a query sees them: without the papers it hides (a training run hides
 * the test splits, so only train → train citations count), with the per-build indexes read from
 * them. Memoised per hidden set.
 */
export function visibleCitations(
  ctx: RetrieveContext,
  text: PaperText,
): { references: ReferenceIndex; citers: ReferenceIndex; citedBy: Int32Array; citedByYear: Float32Array } {
  const hidden = ctx.hidden ?? new Set<number>();
  const key =
    hidden.size === 0
      ? ""
      : `:${createHash("sha1")
          .update([...hidden].sort((a, b) => a - b).join(","))
          .digest("hex")}`;
  return ctx.graph.memo(`citations${key}`, () => {
    const references =
      hidden.size === 0
        ? text.references
        : referenceIndex(
            ctx.graph.papers.length,
            (function* () {
              for (let a = 0; a < ctx.graph.papers.length; a++) {
                if (hidden.has(a)) continue;
                for (let e = text.references.offsets[a]; e < text.references.offsets[a + 1]; e++)
                  if (!hidden.has(text.references.refs[e])) yield [a, text.references.refs[e]] as const;
              }
            })(),
          );
    const citedBy = citedByCounts(references);
    return { references, citers: citersIndex(references), citedBy, citedByYear: citedByPerYear(citedBy, (n) => ctx.graph.papers[n].year) };
  });
}

/** The second stage's feature rows of the fused pool's first `depth` results (lib/retrieve/rerank.ts). */
export async function hybridRerankRows(ctx: RetrieveContext, fused: readonly FusedResult[], depth: number): Promise<number[][]> {
  const text = await paperText(ctx.db, ctx.graph);
  const tfidf = await paperTfidf(ctx.db, ctx.graph);
  const abstract = ctx.query.index !== null ? text.abstracts.at(ctx.query.index) : ctx.query.abstract;
  const whole = `${ctx.query.title} ${abstract}`.trim();
  const queryNode = ctx.query.index ?? ctx.query.exclude;
  const hidden = ctx.hidden ?? new Set<number>();
  const usable = (h: { doc: number }) => h.doc !== queryNode && !hidden.has(h.doc);
  const bm25 = text.index.search(text.queryTokens(whole), 1000).filter(usable);
  const withItems = [whole, ...Object.values(ctx.query.items).flat()].join(" ");
  const citations = visibleCitations(ctx, text);
  const pe = await paperEncoder(ctx.db, ctx.graph);
  return rerankFeatures(fused.slice(0, depth), {
    bm25,
    tfidf: tfidf.whole.search(tfidfTokens(whole), 1000),
    references: citations.references,
    citedBy: citations.citedBy,
    citers: citations.citers,
    citedByYear: citations.citedByYear,
    queryYear: ctx.query.year ?? null,
    queryVectors: ctx.query.vectors,
    vectorsOf: (f, node) => vectorsOf(ctx.graph, f, node),
    queryNode,
    seeds: SEED_EXPANSION.seeds,
    queryAuthors: ctx.query.authors ?? [],
    papersByAuthor: ctx.graph.memo("papers-by-author", () => papersByAuthor(ctx.graph.papers)),
    hidden,
    paper: (node) => ctx.graph.papers[node],
    queryTokens: new Set(text.queryTokens(withItems)),
    titleTokens: (node) => text.queryTokens(ctx.graph.papers[node].title),
    encoder: pe && whole ? encoderEvidence(pe, whole, (n) => n !== queryNode && !hidden.has(n)) : null,
  });
}

export function hybridRetriever(settings: HybridSettings = HYBRID, name = "hybrid"): Retriever {
  return {
    name,
    scoreKind: "score",
    // Its facet lists already follow citations; graph-RRF would keep only the top-20 graph
    // neighbours (tuning half, R@20: RRF 0.518, graph-RRF as corroboration RRF 0.400).
    preferredFusion: "rrf",
    // Item vectors are read by the generative lists and the second stage's "dense" feature only.
    readsItemVectors: settings.generativeWeight > 0 || (settings.rerank?.features.includes("dense") ?? false),
    async retrieve(ctx: RetrieveContext): Promise<FacetCandidateLists> {
      const text = await paperText(ctx.db, ctx.graph);
      const never = new Set([ctx.query.index, ctx.query.exclude, ...(ctx.hidden ?? [])].filter((x): x is number => x !== null));
      const generative = await generativeLists(ctx, settings);
      // A corpus paper's abstract is not in the request: read it from the build's text.
      const abstract = ctx.query.index !== null ? text.abstracts.at(ctx.query.index) : ctx.query.abstract;
      const whole = `${ctx.query.title} ${abstract}`.trim();
      const restricted = ctx.facetsRestricted ? settings.restricted : null;
      // Restricted to a facet ("related through its methods"), the lists stay as CSFCube chose them.
      const later = restricted ? null : laterHop(ctx, text, settings);
      const tfidf = restricted ? await paperTfidf(ctx.db, ctx.graph) : null;
      const enc = settings.encoder;
      const encoder = !restricted && enc && (enc.whole > 0 || enc.facet > 0) ? await paperEncoder(ctx.db, ctx.graph) : null;
      const keep = (hits: readonly { doc: number; score: number }[]): FacetCandidate[] =>
        hits.filter((h) => !never.has(h.doc)).map((h) => ({ paper: h.doc, score: h.score }));
      const wholeList = tfidf && whole ? keep(tfidf.whole.search(tfidfTokens(whole), tfidf.whole.numDocs)) : [];
      const out: FacetCandidateLists = {};
      for (const f of ctx.facets as readonly Facet[]) {
        const items = ctx.query.items[f];
        if (items.length === 0) continue;
        const lexical = expansionList(text, lexicalHits(text, items.join(" "), ctx.pool), ctx.pool, never, later);
        const lists = [{ list: lexical, weight: restricted ? restricted.lexical : 1 }];
        if (!restricted && encoder && enc && enc.facet > 0)
          lists.push({ list: encoderList(encoder, text, items.join(" "), ctx.pool, never, later, enc.expand), weight: enc.facet });
        if (restricted && tfidf) {
          const facet = keep(tfidf.facets[f].search(tfidfTokens(items.join(" ")), ctx.pool + never.size)).slice(0, ctx.pool);
          const reached = new Set([...lexical, ...facet].map((c) => c.paper));
          lists.push({ list: facet, weight: restricted.facet }, { list: wholeList.filter((c) => reached.has(c.paper)), weight: restricted.whole });
        }
        // Re-ranking given candidates: the merge ranks among them, as the fusion after it does.
        const only = ctx.candidates;
        const cut = (l: readonly FacetCandidate[]) => (only ? l.filter((c) => only.has(c.paper)) : l);
        out[f] = mergeCandidateLists(
          [...lists, { list: generative[f] ?? [], weight: settings.generativeWeight }].map((l) => ({ ...l, list: cut(l.list) })),
          settings.k,
          ctx.pool,
        );
      }
      const wholeHits = whole ? lexicalHits(text, whole, ctx.pool) : [];
      if (!ctx.query.year) ctx.referenceYear = seedsMedianYear(wholeHits, (n) => ctx.graph.papers[n].year, never);
      if (whole && !ctx.facetsRestricted && settings.wholePaperWeight > 0) {
        const lexical = expansionList(text, wholeHits, ctx.pool, never, later);
        const list =
          encoder && enc && enc.whole > 0
            ? mergeCandidateLists(
                [
                  { list: lexical, weight: 1 },
                  { list: encoderList(encoder, text, whole, ctx.pool, never, later, enc.expand), weight: enc.whole },
                ],
                settings.k,
                ctx.pool,
              )
            : lexical;
        ctx.wholePaper = { list, weight: settings.wholePaperWeight };
      }
      return out;
    },
    ...(settings.rerank
      ? {
          async rerank(ctx: RetrieveContext, fused: readonly FusedResult[]): Promise<FusedResult[]> {
            const model = settings.rerank as RerankModel;
            if (ctx.facetsRestricted) return [...fused];
            return learnedRerank(fused, await hybridRerankRows(ctx, fused, model.depth), model);
          },
        }
      : {}),
  };
}
