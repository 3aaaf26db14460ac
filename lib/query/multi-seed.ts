/**
 * Several seeds at once (issue 19 part 3): "papers related to these papers". relatedPapers runs
 * for each seed (a corpus paper id, a paper record or pasted text) with the same options, and
 * the per-seed rankings are fused with reciprocal rank fusion, every seed weighing 1:
 *
 *   score(d) = Σ_seeds 1 / (rrfK + rank_s(d))       (rank_s: d's rank in seed s's fused list)
 *
 * A seed is never a result (neither of its own list nor of another seed's). Each result carries
 * its provenance: which seed(s) surfaced it, at which rank, through which facet(s).
 *
 * With `candidates` (re-ranking a reading list), candidates that no seed's retriever reached come
 * after the fused ones, in the request's order, as in a single query.
 */
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS, FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { PAPER_DEFAULTS } from "@/lib/config";
import { relatedOptionFields, relatedOptions, type RelatedOptions } from "./options";
import { relatedPapers, type RelatedHooks, type RelatedInput } from "./related";
import { MAX_K, type AppliedFusion, type QuerySource, type RelatedPaper, type RelatedResult, type RetrieverName } from "./types";

/** At most this many seeds in one request. */
export const MAX_SEEDS = 20;
/** Each seed's list is read this deep before fusion (or as deep as k, when k is larger). */
export const SEED_DEPTH = MAX_K;

/** One seed: a corpus paper id, a paper record ({title, abstract, facets?, …}) or pasted text. */
export type SeedInput = { paperId: string } | { paper: unknown } | { text: string };

export interface SeedInfo {
  /** Position of the seed in the request, from 0. */
  index: number;
  /** Its corpus id (corpus papers; a record's id when it names a corpus paper), else null. */
  externalId: string | null;
  title: string;
  source: QuerySource;
  /** How many results its own list held (after filters, before fusion). */
  retrieved: number;
}

/** One seed's share in a fused result. */
export interface SeedProvenance {
  seed: number;
  seedId: string | null;
  /** The paper's rank in that seed's list (1 = first). */
  rank: number;
  /** The facets that list credited for it (empty when only the whole-paper list found it). */
  facets: Facet[];
}

export interface MultiSeedPaper extends Pick<RelatedPaper, "externalId" | "title" | "year" | "venue" | "authors"> {
  /** The RRF score over seeds (0 for a candidate no seed reached). */
  score: number;
  /** The seeds that surfaced it, in seed order. */
  seeds: SeedProvenance[];
  /** Every facet credited by any seed, in canonical order. */
  facets: Facet[];
  unreached?: true;
}

export interface MultiSeedResult {
  corpus: string;
  build: number;
  retriever: RetrieverName;
  /** The fusion each seed's facet lists went through (per seed, in seed order). */
  seedFusion: AppliedFusion[];
  /** How the seeds' lists were fused. */
  fusion: "rrf";
  rrfK: number;
  seeds: SeedInfo[];
  results: MultiSeedPaper[];
  timings: { perSeedMs: number[]; fuseMs: number; totalMs: number };
  candidates?: { given: number; ranked: number; reached: number };
}

/** Fuses per-seed results (seeds in order) into one ranking: exported for tests and the evaluation. */
export function fuseSeedResults(perSeed: readonly RelatedResult[], options: { k: number; rrfK?: number; candidates?: readonly string[] }): MultiSeedPaper[] {
  const rrfK = options.rrfK ?? PAPER_DEFAULTS.rrfK;
  const seedIds = new Set(perSeed.map((r) => r.query.externalId).filter((x): x is string => x !== null));
  const byId = new Map<string, MultiSeedPaper>();
  const unreached = new Map<string, MultiSeedPaper>();
  perSeed.forEach((result, seed) => {
    let rank = 0;
    for (const p of result.results) {
      if (p.unreached) {
        if (!seedIds.has(p.externalId) && !unreached.has(p.externalId)) {
          unreached.set(p.externalId, {
            externalId: p.externalId,
            title: p.title,
            year: p.year,
            venue: p.venue,
            authors: p.authors,
            score: 0,
            seeds: [],
            facets: [],
            unreached: true,
          });
        }
        continue;
      }
      rank++;
      if (seedIds.has(p.externalId)) continue; // a seed is never a result, but it keeps its place in the list
      let entry = byId.get(p.externalId);
      if (!entry) {
        entry = { externalId: p.externalId, title: p.title, year: p.year, venue: p.venue, authors: p.authors, score: 0, seeds: [], facets: [] };
        byId.set(p.externalId, entry);
      }
      entry.score += 1 / (rrfK + rank);
      const facets = FACETS.filter((f) => p.facets.some((c) => c.facet === f));
      entry.seeds.push({ seed, seedId: result.query.externalId, rank, facets });
      entry.facets = FACETS.filter((f) => entry.facets.includes(f) || facets.includes(f));
    }
  });
  const bestRank = (p: MultiSeedPaper) => Math.min(...p.seeds.map((s) => s.rank));
  const fused = [...byId.values()].sort((a, b) => b.score - a.score || bestRank(a) - bestRank(b) || a.externalId.localeCompare(b.externalId));
  for (const id of byId.keys()) unreached.delete(id);
  let rest = [...unreached.values()];
  if (options.candidates) {
    const order = new Map(options.candidates.map((id, i) => [id, i]));
    rest = rest.sort((a, b) => (order.get(a.externalId) ?? Infinity) - (order.get(b.externalId) ?? Infinity));
  }
  return [...fused, ...rest].slice(0, options.k);
}

/** relatedPapers for every seed, fused across seeds (see the file's comment). */
export async function relatedToSeeds(
  db: Db,
  corpus: string | undefined,
  seeds: readonly SeedInput[],
  options: RelatedOptions,
  hooks: RelatedHooks = {},
): Promise<MultiSeedResult> {
  const started = performance.now();
  if (seeds.length === 0) throw new z.ZodError([{ code: "custom", path: ["seeds"], message: "give at least one seed", input: seeds }]);
  if (seeds.length > MAX_SEEDS) throw new z.ZodError([{ code: "custom", path: ["seeds"], message: `at most ${MAX_SEEDS} seeds`, input: seeds }]);
  const perSeedOptions: RelatedOptions = { ...options, k: Math.max(options.k, SEED_DEPTH) };
  const perSeed: RelatedResult[] = [];
  const perSeedMs: number[] = [];
  for (const seed of seeds) {
    const t0 = performance.now();
    perSeed.push(await relatedPapers(db, { corpus, ...seed } as RelatedInput, perSeedOptions, hooks));
    perSeedMs.push(performance.now() - t0);
  }
  const t1 = performance.now();
  const results = fuseSeedResults(perSeed, { k: options.k, candidates: options.candidates });
  const fuseMs = performance.now() - t1;
  const first = perSeed[0];
  const reached = results.filter((r) => !r.unreached).length;
  return {
    corpus: first.corpus,
    build: first.build,
    retriever: first.retriever,
    seedFusion: perSeed.map((r) => r.fusion),
    fusion: "rrf",
    rrfK: PAPER_DEFAULTS.rrfK,
    seeds: perSeed.map((r, index) => ({
      index,
      externalId: r.query.externalId,
      title: r.query.title,
      source: r.query.source,
      retrieved: r.results.filter((p) => !p.unreached).length,
    })),
    results,
    timings: { perSeedMs, fuseMs, totalMs: performance.now() - started },
    ...(options.candidates ? { candidates: { given: options.candidates.length, ranked: results.length, reached } } : {}),
  };
}

// ── POST /api/related with several seeds ───────────────────────────────────────────────

const seedSchema = z.union(
  [
    z
      .string()
      .trim()
      .min(1, "a seed id is empty")
      .max(300)
      .transform((paperId) => ({ paperId })),
    z.strictObject({ paperId: z.string().trim().min(1, "paperId is empty").max(300) }),
    z.strictObject({ text: z.string() }),
    z.strictObject({ paper: z.record(z.string(), z.unknown(), { error: "paper must be a JSON object (title, abstract, facets…)" }) }),
  ],
  { error: "a seed is a corpus paper id, { paperId }, { text } or { paper: { title, abstract, facets… } }" },
);

/** `{ corpus?, seeds: [id | {paperId} | {text} | {paper}], …options }`: the options as for one paper. */
export const multiSeedRequestBody = z
  .strictObject({
    corpus: corpusName.default(DEFAULT_CORPUS),
    seeds: z.array(seedSchema).min(1, "give at least one seed").max(MAX_SEEDS, `at most ${MAX_SEEDS} seeds`),
    ...relatedOptionFields,
  })
  .transform(({ corpus, seeds, ...rest }, ctx) => {
    const options = relatedOptions.safeParse(rest);
    if (!options.success) {
      for (const issue of options.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      return z.NEVER;
    }
    return { corpus, seeds: seeds as SeedInput[], options: options.data };
  });
export type MultiSeedRequestBody = z.infer<typeof multiSeedRequestBody>;
