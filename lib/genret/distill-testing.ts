import type { ListEdge } from "@/lib/graph/csr-testing";

// The distillation tests' hand-made graph, one for the steps (distill-steps.test.ts) and their
// composition (distill.test.ts), so that what each test reads off it is read off the same edges.

/**
 * Four papers' methods edges: 0->1 (0.8), 0->2 (0.4), 1->0 (0.2), 2->3 (0.9, the facet maximum,
 * from a non-source so it yields nothing), 3->1 (0.6), 3->2 (0.7), 3->0 (0.3). With papers 0 and
 * 1 as the sources, paper 3's only in-edge comes from a non-source: it is never a target without
 * the reverse-neighbour fallback, which flips 3->1, its strongest edge to a source.
 */
export const FOUR_PAPER_EDGES: ListEdge[] = [
  [0, 1, 0.8],
  [0, 2, 0.4],
  [1, 0, 0.2],
  [2, 3, 0.9],
  [3, 1, 0.6],
  [3, 2, 0.7],
  [3, 0, 0.3],
];
