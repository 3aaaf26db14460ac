/**
 * The seam between the evaluation harness and a trained generative retriever (lib/genret).
 *
 * The harness never trains or decodes: a `GenerativeProvider` decodes, per query, one ranked
 * candidate list per facet (Graft's facet-item DocIDs) or per view (MINDER's title, substring
 * and pseudo-query identifiers), with each candidate's model score. Everything after decoding
 * is computed here from those lists with lib/fusion, so every fusion row of every table uses
 * one implementation: graph-RRF (in-corpus), corroboration RRF (out-of-corpus), plain RRF and
 * the LM-score (MINDER) combination.
 *
 * A variant names a trained model: a distillation recipe of lib/genret/distill.ts
 * (DISTILL_VARIANTS), a K_min value, an identifier scheme, or MINDER. Rows whose variant the
 * provider cannot run are reported with status "not run" and its reason, never with numbers.
 */
import { z } from "zod";
import { FACETS, type Facet } from "@/lib/corpus";
import { lmScore, rankFused, type Candidate, type FacetLists, type FusedResult } from "@/lib/fusion";
import type { PaperText } from "@/lib/graph/corpus-data";

/** Every model the paper's tables need, with the table rows it feeds. */
export const GENERATIVE_VARIANTS = {
  uniform: { label: "Generative, uniform sampling", recipe: "uniform sampling over source–neighbour pairs, facet-item DocIDs" },
  "+oversample": { label: "+ edge-weighted oversampling", recipe: "uniform + 1–5× cost-proportionate replication (C = 5)" },
  "+floor": { label: "+ coverage floor (K_min = 3)", recipe: "+oversample + K_min = 3 floor" },
  "+fallback": { label: "+ reverse-neighbour fallback (Graft)", recipe: "+floor + reverse-neighbour fallback (N = 10)" },
  "kmin-1": { label: "K_min = 1", recipe: "+oversample + K_min = 1 floor" },
  "kmin-2": { label: "K_min = 2", recipe: "+oversample + K_min = 2 floor" },
  "kmin-4": { label: "K_min = 4", recipe: "+oversample + K_min = 4 floor" },
  "docid-numeric": { label: "Numeric codebook", recipe: "uniform sampling, hierarchical k-means cluster-index DocIDs" },
  "docid-c2t": { label: "C2T cluster keywords", recipe: "uniform sampling, hierarchical k-means cluster-keyword DocIDs" },
  "ce-reweight": { label: "CE reweighting by edge score", recipe: "uniform pairs, cross-entropy weighted 1 + (C−1)·w/w_max" },
  exhaustive: { label: "Exhaustive Cartesian pairing", recipe: "every source item × every target item" },
  "hard-neg-50": { label: "Hard negatives, top-50", recipe: "uniform + unlikelihood term, negatives from the top-50 pool" },
  "hard-neg-100": { label: "Hard negatives, top-100", recipe: "uniform + unlikelihood term, negatives from the top-100 pool" },
  minder: { label: "MINDER", recipe: "title, substring and pseudo-query identifiers (untyped views), LM-score fusion" },
  shipped: {
    label: "Graft, shipped model",
    recipe: "the demo corpus's pretrained model: uniform sampling, d = 256 × 4 layers, trained for hours (models/genret-acl-citegraph)",
  },
} as const;
export type GenerativeVariant = keyof typeof GENERATIVE_VARIANTS;
export const GENERATIVE_VARIANT_IDS = Object.keys(GENERATIVE_VARIANTS) as GenerativeVariant[];

/** The model the fusion, attribution and leave-one-out tables use (the paper's K_min = 3 model). */
export const FUSION_VARIANT: GenerativeVariant = "+floor";
/** Graft's full recipe: the main table's last ladder row and the out-of-corpus row. */
export const GRAFT_VARIANT: GenerativeVariant = "+fallback";

/** A query paper as the retriever sees it. */
export interface GenerativeQuery {
  /** External id (corpus id in-corpus, the query's own id out of corpus). */
  id: string;
  /** Node index when the query is a corpus paper (graph-RRF reads its row), else null. */
  corpusIndex: number | null;
  title: string;
  abstract: string;
  /** Facet items verbatim; each one is decoded as a pseudo-query. */
  facets: Record<Facet, string[]>;
  /** The same items' unit vectors, in item order (embedder: GenerativeRunOptions.embedder). */
  items: Partial<Record<Facet, readonly Float32Array[]>>;
}

/**
 * One query's decoded candidates, best first. Facet variants fill `lists` (one list per facet,
 * the concatenation of its items' beams in bullet order); MINDER fills `views` (one list per
 * identifier view). `Candidate.score` is the identifier's mean per-token log-probability.
 */
export interface GenerativeResult {
  lists?: FacetLists;
  views?: Readonly<Record<string, readonly Candidate[]>>;
}

export interface GenerativeRunOptions {
  /** External ids in corpus-index order: candidate `paper` values index this list. */
  corpusIds: readonly string[];
  /** Id of the embedder behind GenerativeQuery.items (a model trained on another must refuse). */
  embedder: string;
  /** Called as queries finish, for progress reporting. */
  onProgress?: (done: number, total: number) => void;
}

/** Decodes every query with the model of `variant`; one result per query, in query order. */
export type GenerativeRun = (variant: GenerativeVariant, queries: readonly GenerativeQuery[], options: GenerativeRunOptions) => Promise<GenerativeResult[]>;

export interface GenerativeProvider {
  run: GenerativeRun;
  /** null when `variant` can run, else why not (e.g. "no trained model"); default: all can. */
  unavailable?(variant: GenerativeVariant): string | null;
  /** What produced the variant's model (checkpoint, examples, steps, wall time), for manifests. */
  describe?(variant: GenerativeVariant): Record<string, unknown>;
}

export function paperQuery(id: string, corpusIndex: number | null, text: PaperText, items: Partial<Record<Facet, readonly Float32Array[]>>): GenerativeQuery {
  return { id, corpusIndex, title: text.title, abstract: text.abstract, facets: text.facets, items };
}

const candidateSchema = z.object({
  paper: z.number().int().nonnegative(),
  score: z.number().optional(),
  queryItem: z.number().int().nonnegative().optional(),
  docId: z.number().int().nonnegative().optional(),
});
const listSchema = z.array(candidateSchema);
const resultSchema = z
  .object({
    lists: z.partialRecord(z.enum(FACETS), listSchema).optional(),
    views: z.record(z.string().min(1), listSchema).optional(),
  })
  .refine((r) => (r.lists === undefined) !== (r.views === undefined), "give exactly one of lists (facet variants) and views (MINDER)");

/** Thrown when a provider's output breaks the contract; names the variant, query and field. */
export class GenerativeOutputError extends Error {}

/** Validates a provider's output at the edge: counts, shapes and corpus indices. */
export function validateGenerativeResults(
  variant: GenerativeVariant,
  queries: readonly GenerativeQuery[],
  results: unknown,
  numPapers: number,
): GenerativeResult[] {
  if (!Array.isArray(results)) throw new GenerativeOutputError(`generative ${variant}: expected an array of results, got ${typeof results}`);
  if (results.length !== queries.length) throw new GenerativeOutputError(`generative ${variant}: ${results.length} results for ${queries.length} queries`);
  return results.map((raw, i) => {
    const parsed = resultSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GenerativeOutputError(`generative ${variant}, query ${queries[i].id}: ${issue.path.join(".") || "result"}: ${issue.message}`);
    }
    const lists = parsed.data.lists ?? parsed.data.views ?? {};
    for (const [key, list] of Object.entries(lists)) {
      const bad = list?.find((c) => c.paper >= numPapers);
      if (bad)
        throw new GenerativeOutputError(`generative ${variant}, query ${queries[i].id}, ${key}: paper ${bad.paper} is not a corpus index (< ${numPapers})`);
    }
    return parsed.data as GenerativeResult;
  });
}

/** A provider's verdict on a variant, with a default reason when there is no provider. */
export function availability(provider: GenerativeProvider | undefined, variant: GenerativeVariant): string | null {
  if (!provider) return "no generative provider was given to the harness (lib/genret supplies one once a model is trained)";
  return provider.unavailable?.(variant) ?? null;
}

/**
 * MINDER's combination over untyped views (appendix "MINDER Baseline"): "the paper's score is
 * the sum over the views that retrieved it" of its identifiers' probabilities. Each view goes
 * through lmScore alone (its within-view rule: best identifier of the paper), then the views
 * add up. Views are not facets, so the results carry no provenance.
 */
export function viewLmScore(views: Readonly<Record<string, readonly Candidate[]>>, options: { topN?: number; exclude?: number } = {}): FusedResult[] {
  const total = new Map<number, number>();
  for (const list of Object.values(views)) {
    // lmScore fuses facet-keyed lists; one view at a time under any one key is the same sum.
    for (const r of lmScore({ problems: list }, { topN: Number.POSITIVE_INFINITY, exclude: options.exclude }))
      total.set(r.paper, (total.get(r.paper) ?? 0) + r.score);
  }
  return rankFused(
    [...total].map(([paper, score]) => ({ paper, score, provenance: [] })),
    options.topN ?? 50,
  );
}

/** True when every candidate of the lists has a model score (LM-score fusion needs them). */
export function hasModelScores(lists: FacetLists): boolean {
  return FACETS.every((f) => (lists[f] ?? []).every((c) => c.score !== undefined));
}

/** What a provider module is given to find its models and data. */
export interface GenerativeProviderContext {
  corpusDir: string;
  /** GRAFT_DATA_ROOT: builds, checkpoints, vector caches. */
  dataRoot: string;
  log: (message: string) => void;
}

/**
 * A module that supplies the generative rows (`graft eval --generative <module>`) exports
 * `createGenerativeProvider`. Loading it is the CLI's job; the harness only sees the provider.
 */
export type GenerativeProviderFactory = (context: GenerativeProviderContext) => Promise<GenerativeProvider>;

/** Loads `createGenerativeProvider` from a module path (relative to the working directory) or package name. */
export async function loadGenerativeProvider(specifier: string, context: GenerativeProviderContext): Promise<GenerativeProvider> {
  const { pathToFileURL } = await import("node:url");
  const path = await import("node:path");
  const isPath = specifier.startsWith(".") || specifier.startsWith("/") || /\.[cm]?[jt]s$/.test(specifier);
  const url = isPath ? pathToFileURL(path.resolve(specifier)).href : specifier;
  let mod: { createGenerativeProvider?: unknown };
  try {
    mod = (await import(url)) as { createGenerativeProvider?: unknown };
  } catch (err) {
    throw new Error(`--generative ${specifier}: cannot load the module: ${(err as Error).message}`);
  }
  if (typeof mod.createGenerativeProvider !== "function")
    throw new Error(`--generative ${specifier}: the module does not export a createGenerativeProvider function`);
  const provider = (await (mod.createGenerativeProvider as GenerativeProviderFactory)(context)) as Partial<GenerativeProvider> | null;
  if (!provider || typeof provider.run !== "function")
    throw new Error(`--generative ${specifier}: createGenerativeProvider did not return an object with a run() function`);
  return provider as GenerativeProvider;
}
