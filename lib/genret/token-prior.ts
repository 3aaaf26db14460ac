/**
 * A language prior for the decoder's token embeddings (issue "retriever quality": initialise
 * token embeddings from a prior available offline). A compact token's prior vector is the
 * mean sentence embedding (the retriever's own embedder, e.g. USE-lite) of the DocIDs that
 * contain it, L2-normalised: "translation" lands near items about translation, in the same
 * space as the query items the decoder is conditioned on. The trainer projects these vectors
 * and the query projection onto one shared basis (workers/trainer/model.py
 * `init_token_prior`), so an untrained decoder already scores a token by how close the query
 * is to the identifiers that use it; training starts from there instead of from noise.
 *
 * Uses only the corpus's identifiers (the index), never the graph or any split's supervision.
 */
import { FACETS, type Facet } from "@/lib/corpus";
import type { Identifiers } from "./prepare";
import { compactIndex } from "./vocab";

/** The embedding of item `item` of paper `paper` (node order) in facet `facet`, if embedded. */
export type ItemVectorOf = (facet: Facet, paper: number, item: number) => Float32Array | undefined;

/** Row-major [vocab.size × dim]; PAD, EOS and tokens of no embedded identifier stay zero. */
export function identifierTokenPrior(ids: Identifiers, itemVector: ItemVectorOf, dim: number): Float32Array {
  const size = ids.vocab.size;
  const sums = new Float64Array(size * dim);
  const compact = compactIndex(ids.vocab);
  for (const f of FACETS) {
    const facet = ids.index.facets[f];
    facet.itemIdentifiers.forEach((identifiers, paper) =>
      identifiers.forEach((identifier, item) => {
        if (identifier < 0) return;
        const v = itemVector(f, paper, item);
        if (!v) return;
        // Each token counts once per identifier, so a repeated word does not outweigh the rest.
        for (const t of new Set(facet.identifiers[identifier])) {
          const row = (compact.get(t) as number) * dim;
          for (let k = 0; k < dim; k++) sums[row + k] += v[k];
        }
      }),
    );
  }
  const out = new Float32Array(size * dim);
  for (let c = 0; c < size; c++) {
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += sums[c * dim + k] ** 2;
    if (norm === 0) continue;
    const inv = 1 / Math.sqrt(norm);
    for (let k = 0; k < dim; k++) out[c * dim + k] = sums[c * dim + k] * inv;
  }
  return out;
}
