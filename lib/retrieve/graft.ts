/**
 * The generative retriever ("graft") behind the query pipeline's retriever interface
 * (lib/retrieve/retriever.ts): each query item is decoded with trie-constrained beam search into
 * DocIDs of related papers, one list per facet. The model is the newest complete genret
 * build of the corpus, loaded once per process (a cached singleton) and swapped atomically
 * when a newer build completes. Beams and decoder threads: GRAFT_BEAMS, GRAFT_DECODE_THREADS
 * (lib/config.ts), read when a query runs, not when this module loads.
 */
import path from "node:path";
import { latestBuildWith } from "@/lib/builds/build-dir";
import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { config } from "@/lib/config";
import { dataRoot } from "@/lib/paths";
import { RetrievalError, type FacetCandidate, type FacetCandidateLists, type RetrieveContext, type Retriever } from "./retriever";
import { normalizeFacetItem } from "@/lib/genret/docid";
import { decodeTokens } from "@/lib/text/tokenizer";
import { generativeFacetLists, loadGenretModel, type GenretModel } from "@/lib/genret/model";

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
  const build = await latestBuildWith(db, corpus, "decoder.onnx");
  if (!build) {
    throw new RetrievalError("not_ready", `retriever "graft" needs a trained model for corpus "${corpus}": run \`npm run graft -- build --stage genret --corpus ${corpus}\`, or use retriever dense-graph`);
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
  loaded.then(() => previous?.then((p) => setTimeout(() => void p.model.decoder.close(), 60_000).unref()), () => state.delete(corpus));
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
  for (let i = offsets[paper]; i < offsets[paper + 1]; i++) if (normalizeFacetItem(texts[i]).startsWith(docId)) return i - offsets[paper];
  return undefined;
}

export const graftRetriever: Retriever = {
  name: "graft",
  scoreKind: "log-prob",
  async retrieve(ctx: RetrieveContext): Promise<FacetCandidateLists> {
    const loaded = await modelFor(ctx.db, ctx.graph.corpus);
    const { model } = loaded;
    if (model.manifest.embedder !== ctx.graph.embedder) {
      throw new RetrievalError("not_ready", `the generative model was trained on ${model.manifest.embedder} vectors but the graph build uses ${ctx.graph.embedder}: rebuild it with \`graft build --stage genret\``);
    }
    const map = nodeMap(loaded, ctx);
    const skip = new Set([ctx.query.index, ctx.query.exclude].filter((x): x is number => x !== null));
    const items: Partial<Record<Facet, Float32Array[]>> = {};
    for (const f of ctx.facets) items[f] = ctx.query.vectors[f] ?? [];
    const tokens = new Map<string, readonly number[]>();
    const lists = await generativeFacetLists(model, { items }, { beams: config().GRAFT_BEAMS, facets: ctx.facets, identifierTokens: tokens });
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
  },
};
