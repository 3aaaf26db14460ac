/**
 * Process-wide singletons of the query pipeline: the item embedder (per embedder id: a build's
 * query items must be embedded with the model its graph was built with; shared with the
 * retrievers, lib/retrieve/services.ts) and the configured facet extractor. Each is created
 * on first use and shared by every request; a failed creation is not cached, so the next
 * request retries.
 */
import { configFrom, type Env, type EXTRACTORS } from "@/lib/config";
import { FACETS, type Facet } from "@/lib/corpus";
import type { FacetExtractor } from "@/lib/facets";
import { type LoadedGraph, RetrievalError, itemEmbedder, once } from "@/lib/retrieve";

/**
 * Recently embedded query items by embedder and exact text, in memory only (user text is never
 * written to the build's cache). A user who changes filters or the retriever re-sends the same
 * paper; its items then cost nothing. Map order is insertion order: re-inserting on a hit
 * keeps it least-recently-used first.
 */
const RECENT_MAX = 4096;
const recent = new Map<string, Float32Array>();
const recentKey = (embedderId: string, text: string) => `${embedderId}\u0000${text}`;
function remember(key: string, v: Float32Array): void {
  recent.delete(key);
  recent.set(key, v);
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value as string);
}

/**
 * Vectors of a query's items, per facet, aligned with the texts: from the build's vector cache
 * when a text is in it (corpus and stored query papers), else from recent queries, else
 * embedded now (one batch of the distinct missing texts).
 */
export async function embedQueryItems(
  g: LoadedGraph,
  items: Record<Facet, string[]>,
): Promise<{ vectors: Record<Facet, Float32Array[]>; embedded: number; ms: number }> {
  const t0 = performance.now();
  const lookup = (t: string): Float32Array | undefined => {
    const stored = g.vectorOf(t);
    if (stored) return stored;
    const key = recentKey(g.embedder, t);
    const hit = recent.get(key);
    if (hit) remember(key, hit);
    return hit;
  };
  const vectors = Object.fromEntries(FACETS.map((f) => [f, items[f].map(lookup)])) as Record<Facet, (Float32Array | undefined)[]>;
  const missing = [...new Set(FACETS.flatMap((f) => items[f].filter((_, i) => !vectors[f][i])))];
  if (missing.length > 0) {
    if (!g.embedder)
      throw new RetrievalError(
        "not_ready",
        `graph build ${g.build} records no embedder, so new text cannot be compared with it: rebuild with \`npm run graft -- build --stage graph\``,
      );
    const embedder = await itemEmbedder(g.embedder);
    const rows = await embedder.embed(missing);
    const byText = new Map(missing.map((t, i) => [t, rows[i]]));
    for (const [t, v] of byText) remember(recentKey(g.embedder, t), v);
    for (const f of FACETS) vectors[f] = vectors[f].map((v, i) => v ?? byText.get(items[f][i]));
  }
  return { vectors: vectors as Record<Facet, Float32Array[]>, embedded: missing.length, ms: performance.now() - t0 };
}

// ── facet extraction for text and PDF input ──

export type ExtractorName = (typeof EXTRACTORS)[number];

/**
 * The configured provider: GRAFT_EXTRACTOR of this process (or of `env`), default the embedded
 * offline extractor; the same setting `graft extract` reads (lib/facets/provider.ts).
 */
export function extractorFromEnv(env?: Env): ExtractorName {
  return configFrom(env).GRAFT_EXTRACTOR;
}

const extractors = new Map<ExtractorName, () => Promise<FacetExtractor>>();

export function queryExtractor(name: ExtractorName = extractorFromEnv()): Promise<FacetExtractor> {
  let get = extractors.get(name);
  if (!get) {
    get = once(async (): Promise<FacetExtractor> => {
      if (name === "offline") return (await import("@/lib/facets")).createOfflineExtractor();
      const { createLlmExtractor, loadLlmConfig } = await import("@/lib/facets");
      return createLlmExtractor(loadLlmConfig());
    });
    extractors.set(name, get);
  }
  return get();
}
