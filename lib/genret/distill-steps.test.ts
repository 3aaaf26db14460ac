/**
 * The steps of distill() one at a time (distill.test.ts checks their composition): the DocID
 * universe, paper-level incoming edges, edge sampling, the reverse-neighbour fallback and the
 * K_min floor, each on a hand-made graph whose expected examples can be read off.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { graphOfEdges as graphOf } from "@/lib/graph/csr-testing";
import { mulberry32 } from "@/lib/random";
import {
  coverageFloor,
  ExampleBuilder,
  facetExampleWriter,
  identifierCounts,
  incomingEdgeInAnyFacet,
  ORIGIN_EDGE,
  ORIGIN_FALLBACK,
  ORIGIN_FLOOR,
  reverseNeighbourFallback,
  sampleEdgeExamples,
  type SamplingSettings,
} from "./distill-steps";
import { FOUR_PAPER_EDGES as EDGES } from "./distill-testing";

/** The four-paper methods graph of distill-testing.ts; papers 0 and 1 are the sources, 2 has two items. */
const ITEMS = [[0], [1], [2, 3], [4]];
const isSource = (p: number): boolean => p < 2;
const PLAIN: SamplingSettings = { oversample: false, reweight: false, exhaustive: false, ceiling: 5, hardNegatives: undefined };

function writerFor(settings: SamplingSettings = PLAIN, seed = 1) {
  const out = new ExampleBuilder();
  const rand = mulberry32(seed);
  const negRand = mulberry32(seed + 1);
  const pick = (k: number): number => Math.floor(rand() * k);
  const writer = facetExampleWriter({
    graph: graphOf(4, { methods: EDGES }),
    facet: "methods",
    items: { itemIdentifiers: ITEMS },
    identifiers: 5,
    settings,
    out,
    pick,
    pickNegative: (k) => Math.floor(negRand() * k),
  });
  const rows = () =>
    Array.from({ length: out.length }, (_, r) => [out.origin[r], out.sourcePaper[r], out.targetPaper[r], out.targetIdentifier[r], out.negative[r]]);
  return { writer, out, pick, rows };
}

describe("distillation steps", () => {
  test("the DocID universe of a facet is its largest identifier + 1; a facet without items has none", () => {
    const counts = identifierCounts({ methods: { itemIdentifiers: [[0, 3], [-1], [7]] } }, 3);
    assert.equal(counts.methods, 8);
    assert.equal(counts.problems, 0);
    assert.throws(() => identifierCounts({ methods: { itemIdentifiers: [[0]] } }, 3), /items.methods has 1 papers, graph 3/);
  });

  test("paper-level incoming edges count only edges from sources, in any facet", () => {
    const graph = graphOf(4, {
      methods: [
        [0, 1, 0.5],
        [2, 3, 0.5],
        [1, 1, 0.9],
      ],
      results: [[1, 2, 0.5]],
    });
    assert.deepEqual([...incomingEdgeInAnyFacet(graph, ["methods", "results"], isSource)], [0, 1, 1, 0]);
    assert.deepEqual([...incomingEdgeInAnyFacet(graph, ["methods"], isSource)], [0, 1, 0, 0]);
  });

  test("edge sampling: one example per source item and edge, a target item sampled from the neighbour's, in-neighbours recorded", () => {
    const { writer, rows } = writerFor();
    sampleEdgeExamples(writer, isSource);
    const got = rows();
    assert.deepEqual(
      got.map(([o, q, d]) => [o, q, d]),
      [
        [ORIGIN_EDGE, 0, 1],
        [ORIGIN_EDGE, 0, 2],
        [ORIGIN_EDGE, 1, 0],
      ],
    );
    assert.ok([2, 3].includes(got[1][3]), "the target identifier is one of paper 2's items");
    assert.deepEqual(writer.inNeighbours, [[1], [0], [0], []]);
    assert.deepEqual([...writer.exposures], [1, 1, got[1][3] === 2 ? 1 : 0, got[1][3] === 3 ? 1 : 0, 0]);
  });

  test("reverse-neighbour fallback flips an orphan's strongest edges to sources, at most `breadth` of them", () => {
    const { writer, rows } = writerFor();
    sampleEdgeExamples(writer, isSource);
    const before = rows().length;
    reverseNeighbourFallback(writer, isSource, (a) => writer.inNeighbours[a].length === 0, 1);
    // Paper 3 is the only orphan; its strongest edge to a source is 3->1 (0.6), flipped to 1->3.
    assert.deepEqual(
      rows()
        .slice(before)
        .map(([o, q, d, id]) => [o, q, d, id]),
      [[ORIGIN_FALLBACK, 1, 3, 4]],
    );
    assert.deepEqual(writer.inNeighbours[3], [1]);
  });

  test("the K_min floor tops every reachable DocID up to K_min from its papers' in-neighbours, and leaves the rest", () => {
    const { writer, pick, rows } = writerFor();
    sampleEdgeExamples(writer, isSource);
    coverageFloor(writer, 3, pick);
    // Identifiers 0..3 have in-neighbours; 4 (paper 3) has none without the fallback.
    assert.deepEqual([...writer.exposures], [3, 3, 3, 3, 0]);
    for (const [, q, d] of rows().filter(([o]) => o === ORIGIN_FLOOR)) {
      assert.ok(writer.inNeighbours[d].includes(q), `floor source ${q} is an in-neighbour of ${d}`);
    }
  });

  test("hard negatives come from outside the source's kept neighbours and never equal the positive", () => {
    const { writer, rows } = writerFor({ ...PLAIN, hardNegatives: { poolSize: 50 } });
    sampleEdgeExamples(writer, isSource);
    // Without a candidate graph the pool is two-hop reach: source 0 keeps 1 and 2 and reaches 3
    // (via 2); source 1 keeps 0 and reaches 2 (via 0). A source and its kept neighbours never qualify.
    const got = rows();
    assert.ok(got.length > 0);
    for (const [, q, , id, neg] of got) {
      assert.notEqual(neg, id);
      if (q === 0) assert.equal(neg, 4);
      if (q === 1) assert.ok([2, 3].includes(neg), `negative ${neg} is one of paper 2's items`);
    }
  });
});
