/**
 * The generative retriever ("graft") behind the query pipeline's retriever interface
 * (lib/retrieve/retriever.ts): each query item is decoded with trie-constrained beam search into
 * DocIDs of related papers, one list per facet. The model is the newest complete genret
 * build of the corpus, loaded once per process (a cached singleton) and swapped atomically
 * when a newer build completes. Beams and decoder threads: GRAFT_BEAMS, GRAFT_DECODE_THREADS
 * (lib/config.ts), read when a query runs, not when this module loads.
 */
import path from "node:path";
import { newestIntactBuildWith } from "@/lib/builds";
import { FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { config } from "@/lib/config";
import { dataRoot } from "@/lib/paths";
import { RetrievalError, type FacetCandidate, type FacetCandidateLists, type RetrieveContext, type Retriever } from "./retriever";
import { normalizeFacetItem, generativeFacetLists, isTokenModel, loadGenretModel, type GenretModel } from "@/lib/genret";
import { decodeTokens } from "@/lib/text";
import { UNSEEN_WALK, unseenStarts } from "./dense-graph";
import { itemEmbedder } from "./services";
import { walkFacet } from "./walk";

interface Loaded {
  build: number;
  model: GenretModel;
  /** Model node index → node index of the graph being served (-1 when absent). */
  toGraph: Map<string, Int32Array>;
  docIdText: Map<string, string>;
}

const RECHECK_MS = 5_000;
const state = new Map<string, { loaded: Promise<Loaded> | null; build: number; checked: number }>();

async function modelFor(db: Db, corpus: string): Promise<Loaded> {
  const now = Date.now();
  const held = state.get(corpus);
  if (held?.loaded && now - held.checked < RECHECK_MS) return held.loaded;
  const build = await newestIntactBuildWith(db, corpus, "decoder.onnx", "genret");
  if (!build) {
    throw new RetrievalError(
      "not_ready",
      `retriever "graft" needs a trained model for corpus "${corpus}": run \`npm run graft -- build --stage genret --corpus ${corpus}\`, or use retriever dense-graph`,
    );
  }
  if (held?.loaded && held.build === build.id) {
    held.checked = now;
    return held.loaded;
  }
  const loaded = (async (): Promise<Loaded> => {
    const model = await loadGenretModel(path.resolve(dataRoot(), build.dir), { threads: config().GRAFT_DECODE_THREADS });
    return { build: build.id, model, toGraph: new Map(), docIdText: new Map() };
  })();
  const previous = held?.loaded;
  state.set(corpus, { loaded, build: build.id, checked: now });
  // The old model is released once the new one is ready (requests in flight keep using it).
  loaded.then(
    () => previous?.then((p) => setTimeout(() => void p.model.decoder.close(), 60_000).unref()),
    () => state.delete(corpus),
  );
  return loaded;
}

function nodeMap(loaded: Loaded, ctx: RetrieveContext): Int32Array {
  const key = `${ctx.graph.build}`;
  let map = loaded.toGraph.get(key);
  if (!map) {
    map = Int32Array.from(loaded.model.paperIds, (id) => ctx.graph.indexOfExternalId.get(id) ?? -1);
    loaded.toGraph.set(key, map);
  }
  return map;
}

/** The DocID's text, from the tokens the search produced (cached per model). */
function docIdText(loaded: Loaded, key: string, tokens: readonly number[]): string {
  let text = loaded.docIdText.get(key);
  if (text === undefined) {
    const { llamaIds } = loaded.model.identifiers.vocab;
    text = decodeTokens(tokens.map((t) => llamaIds[t]));
    loaded.docIdText.set(key, text);
  }
  return text;
}

/** Which of the paper's items the DocID identifies: the one whose normalised text it begins. */
function itemOf(ctx: RetrieveContext, facet: Facet, paper: number, docId: string): number | undefined {
  const { offsets, texts } = ctx.graph.items[facet];
  for (let i = offsets[paper]; i < offsets[paper + 1]; i++) if (normalizeFacetItem(texts.at(i)).startsWith(docId)) return i - offsets[paper];
  return undefined;
}

/**
 * The query's item vectors in the model's own space: the embedder named in its genret.json, which
 * need not be the graph build's (its tries come from the items' text, so the shipped USE-lite model
 * also serves a graph embedded with the text encoder). The context's vectors are reused when they
 * are already that embedder's; otherwise the items are embedded here.
 */
async function modelItemVectors(ctx: RetrieveContext, embedderId: string): Promise<Partial<Record<Facet, Float32Array[]>>> {
  const { items, vectors } = ctx.query;
  if (embedderId === ctx.graph.embedder && ctx.facets.every((f) => vectors[f].length === items[f].length)) {
    return Object.fromEntries(ctx.facets.map((f) => [f, vectors[f]]));
  }
  const texts = ctx.facets.flatMap((f) => items[f]);
  let rows: Float32Array[] = [];
  if (texts.length > 0) {
    try {
      rows = await (await itemEmbedder(embedderId)).embed(texts);
    } catch (err) {
      throw new RetrievalError("not_ready", `the generative model embeds queries with ${embedderId}, which could not run: ${(err as Error).message}`);
    }
  }
  const out: Partial<Record<Facet, Float32Array[]>> = {};
  let at = 0;
  for (const f of ctx.facets) {
    out[f] = rows.slice(at, at + items[f].length);
    at += items[f].length;
  }
  return out;
}

/**
 * The generative lists alone: each query item decoded into DocIDs of related papers, a facet's
 * list its items' lists in item order (what hybrid fuses beside its lexical lists).
 */
export async function generativeFacetCandidates(ctx: RetrieveContext): Promise<FacetCandidateLists> {
  const loaded = await modelFor(ctx.db, ctx.graph.corpus);
  const { model } = loaded;
  const map = nodeMap(loaded, ctx);
  const skip = new Set([ctx.query.index, ctx.query.exclude].filter((x): x is number => x !== null));
  // A model that reads the items' words needs no embedding of them.
  const items = isTokenModel(model.config) ? {} : await modelItemVectors(ctx, model.manifest.embedder);
  const texts = Object.fromEntries(ctx.facets.map((f) => [f, ctx.query.items[f]]));
  const tokens = new Map<string, readonly number[]>();
  const lists = await generativeFacetLists(model, { items, texts }, { beams: config().GRAFT_BEAMS, facets: ctx.facets, identifierTokens: tokens });
  const out: FacetCandidateLists = {};
  for (const f of FACETS) {
    const list = lists[f];
    if (!list) continue;
    const mapped: FacetCandidate[] = [];
    for (const c of list) {
      const paper = map[c.paper];
      if (paper < 0 || skip.has(paper)) continue;
      const key = `${f}:${c.docId}`;
      const seq = c.docId === undefined ? undefined : tokens.get(key);
      const docId = seq === undefined ? undefined : docIdText(loaded, key, seq);
      mapped.push({ paper, score: c.score ?? 0, queryItem: c.queryItem, docId, paperItem: docId === undefined ? undefined : itemOf(ctx, f, paper, docId) });
    }
    out[f] = mapped;
  }
  return out;
}

/**
 * How much the generated papers weigh as walk seeds beside the query's ephemeral edges: a
 * generated paper's seed weight is this share of the strongest edge, times its decoded weight
 * (Σ over the query's items of 1/√rank, normalised to the best). Chosen on issue 17's tuning half
 * (first 150 unseen papers, LLM facets, R@20): 0 (the teacher's walk) 0.297, 0.5 0.308, 1 0.298;
 * the generated papers alone as seeds 0.192, the generative lists alone 0.171.
 */
export const GENERATED_SEED_WEIGHT = 0.5;

const NOT_GENERATED = Math.log(Number.MIN_VALUE);

/** A facet's generated papers as seed weights: Σ over query items of 1/√rank, best = 1. */
function generatedSeeds(list: readonly FacetCandidate[]): Map<number, number> {
  const seeds = new Map<number, number>();
  const rankOfItem = new Map<number, number>();
  for (const c of list) {
    const item = c.queryItem ?? 0;
    const rank = (rankOfItem.get(item) ?? 0) + 1;
    rankOfItem.set(item, rank);
    seeds.set(c.paper, (seeds.get(c.paper) ?? 0) + 1 / Math.sqrt(rank));
  }
  const best = Math.max(0, ...seeds.values());
  for (const [p, w] of seeds) seeds.set(p, w / best);
  return seeds;
}

/**
 * An unseen paper has no row in the graph, so graph-RRF has no w_f(q, ·) to read and the
 * generative lists alone reach few of its related papers. Insert it as the teacher does (its
 * ephemeral first-hop edges), add the papers the model generated as further seeds, and walk the
 * typed graph from both (paths adding up, UNSEEN_WALK): the walk's scores are its w_f(q, ·) and
 * its order the facet's list, each generated paper keeping its DocID as provenance.
 */
export async function walkFromGenerated(ctx: RetrieveContext, generated: FacetCandidateLists): Promise<FacetCandidateLists> {
  const starts = await unseenStarts(ctx);
  const out: FacetCandidateLists = {};
  for (const f of ctx.facets) {
    const csr = ctx.graph.graph.facets[f];
    const edges = starts[f];
    const list = generated[f] ?? [];
    if (!csr || !edges) {
      if (list.length > 0) out[f] = list;
      continue;
    }
    const seeds = new Map<number, number>();
    for (let i = 0; i < edges.targets.length; i++) seeds.set(edges.targets[i], edges.weights[i]);
    const strongest = Math.max(0, ...Array.from(edges.weights));
    for (const [p, w] of generatedSeeds(list)) seeds.set(p, (seeds.get(p) ?? 0) + GENERATED_SEED_WEIGHT * strongest * w);
    const ordered = [...seeds].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const walk = walkFacet(
      csr,
      { targets: ordered.map((s) => s[0]), weights: ordered.map((s) => s[1]), exclude: edges.exclude },
      { ...UNSEEN_WALK, cap: ctx.pool, startFanout: ordered.length },
    );
    ctx.queryEdges[f] = { targets: walk.papers, weights: walk.scores };
    const decoded = new Map<number, FacetCandidate>();
    for (const c of list) if (!decoded.has(c.paper)) decoded.set(c.paper, c);
    // A paper the walk reached but the model did not generate has probability 0 (lm-score sums
    // the generated DocIDs' probabilities): the smallest finite log, which JSON can carry.
    out[f] = Array.from(walk.papers, (paper) => decoded.get(paper) ?? { paper, score: NOT_GENERATED }).filter((c) => c.paper !== ctx.query.exclude);
  }
  return out;
}

export const graftRetriever: Retriever = {
  name: "graft",
  scoreKind: "log-prob",
  async retrieve(ctx: RetrieveContext): Promise<FacetCandidateLists> {
    const generated = await generativeFacetCandidates(ctx);
    return ctx.query.index === null ? walkFromGenerated(ctx, generated) : generated;
  },
};
