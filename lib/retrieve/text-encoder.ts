/**
 * The default retriever's text-relevance model (issue 27): whole papers (title + abstract) as
 * unit vectors of a contrastive bag-of-words encoder fitted here (lib/embed/contrastive.ts:
 * pretrained as LSA on the 63,931 ACL abstracts, trained on train-split citation pairs), ranked
 * by cosine. Citations are not the only knowledge: on a corpus without them this list is the
 * relevance model, and it finds later work as readily as earlier work (text is symmetric in time).
 *
 * The model folder is GRAFT_TEXT_ENCODER (default: the one shipped in models/acl-contrastive;
 * "off" leaves the list out). Corpus vectors are computed once per build and process (≈ 2,000
 * papers/s on one core) and memoised on the loaded build.
 */
import path from "node:path";
import { config } from "@/lib/config";
import { paperText as encoderText, createLsaEmbedder, type LsaEmbedder } from "@/lib/embed";
import { repoRoot } from "@/lib/paths";
import type { Db } from "@/lib/db";
import type { LoadedGraph } from "./graph-store";
import { paperText } from "./paper-text";

export interface PaperEncoder {
  encoder: LsaEmbedder;
  /** Node n's unit vector at [n·dim, (n+1)·dim). */
  vectors: Float32Array;
}

export interface EncoderHit {
  doc: number;
  score: number;
}

const loaded = new Map<string, LsaEmbedder>();

/** The configured encoder (loaded once per process), or null when switched off. */
export function textEncoder(folder: string = config().GRAFT_TEXT_ENCODER): LsaEmbedder | null {
  if (folder === "off") return null;
  const abs = path.resolve(repoRoot, folder);
  let e = loaded.get(abs);
  if (!e) loaded.set(abs, (e = createLsaEmbedder(abs)));
  return e;
}

/** The build's papers embedded by the encoder (null when it is off). */
export async function paperEncoder(db: Db, g: LoadedGraph): Promise<PaperEncoder | null> {
  const encoder = textEncoder();
  if (!encoder) return null;
  const text = await paperText(db, g);
  return g.memo(`text-encoder:${encoder.id}`, () => {
    const dim = encoder.dim;
    const vectors = new Float32Array(g.papers.length * dim);
    for (let n = 0; n < g.papers.length; n++) vectors.set(encoder.embedOne(encoderText(g.papers[n].title, text.abstracts.at(n))), n * dim);
    return { encoder, vectors };
  });
}

/** Recent queries' cosines per build's encoder: retrieval and the second stage of one request read the same text. */
const RECENT_QUERIES = 8;
const recentCosines = new WeakMap<PaperEncoder, Map<string, Float32Array>>();

/** A query text's cosine with every paper (one embedding and one pass over the corpus per text). */
export function queryCosines(pe: PaperEncoder, query: string): Float32Array {
  let recent = recentCosines.get(pe);
  if (!recent) recentCosines.set(pe, (recent = new Map()));
  const hit = recent.get(query);
  if (hit) return hit;
  const q = pe.encoder.embedOne(query);
  const dim = q.length;
  const scores = new Float32Array(pe.vectors.length / dim);
  for (let d = 0; d < scores.length; d++) {
    let s = 0;
    const o = d * dim;
    for (let j = 0; j < dim; j++) s += q[j] * pe.vectors[o + j];
    scores[d] = s;
  }
  recent.set(query, scores);
  if (recent.size > RECENT_QUERIES) recent.delete(recent.keys().next().value as string);
  return scores;
}

/** One query's cosine with any paper, and its best over the papers `usable` allows (the second stage's evidence). */
export function encoderEvidence(pe: PaperEncoder, query: string, usable: (node: number) => boolean): { cosine(node: number): number; best: number } {
  const scores = queryCosines(pe, query);
  let best = 0;
  for (let n = 0; n < scores.length; n++) if (usable(n)) best = Math.max(best, scores[n]);
  return { cosine: (node) => scores[node], best };
}

/** The `pool` papers most similar to `query` (cosine), best first, without `never`. */
export function encoderSearch(pe: PaperEncoder, query: string, pool: number, never: ReadonlySet<number> = new Set()): EncoderHit[] {
  const scores = queryCosines(pe, query);
  const order: number[] = [];
  for (let d = 0; d < scores.length; d++) if (scores[d] > 0 && !never.has(d)) order.push(d);
  order.sort((a, b) => scores[b] - scores[a] || a - b);
  return order.slice(0, pool).map((d) => ({ doc: d, score: scores[d] }));
}
