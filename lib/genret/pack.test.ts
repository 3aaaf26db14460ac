import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus";
import { decisionMask, decisionMaskByRow, encodeTargets, packQueries, writePackFiles, type PackHeader } from "./pack";
import { buildIdentifiers } from "./prepare";
import { buildTrie } from "./trie";
import { EOS, PAD } from "./vocab";

const facets = [
  { problems: ["Parsing noisy text", "Parsing clean text"], methods: ["A neural parser"], results: ["Better accuracy"], contributions: [] },
  { problems: ["Parsing noisy speech"], methods: ["A neural parser", "A rule-based parser"], results: [], contributions: ["A treebank"] },
  { problems: ["Tagging"], methods: [], results: ["Better accuracy on news"], contributions: ["A tagger"] },
];
const ids = buildIdentifiers({ ids: ["a", "b", "c"], facets });

describe("decision masks", () => {
  const { rows, maxLen, offset } = encodeTargets(ids.index, ids.vocab);
  const facetOfRow = (row: number): Facet => FACETS.findLast((f) => offset[f] <= row) as Facet;

  it("per row, with each row's trie, equals the per-facet mask", () => {
    const byFacet = decisionMask(rows, maxLen, offset, ids.tries);
    assert.deepEqual(
      decisionMaskByRow(rows, maxLen, (row) => ids.tries[facetOfRow(row)]),
      byFacet,
    );
    // "parsing noisy …" and "parsing clean …" share a prefix: the first token is a choice, EOS rows end with 0s.
    assert.ok(byFacet.some((d) => d === 1) && byFacet.some((d) => d === 0));
  });

  it("marks where the trie leaves a choice, EOS counted at a terminal with children", () => {
    // Identifiers [5], [5, 6], [7]: root has 2 children; after 5 EOS and 6 are both allowed; after 7 only EOS.
    const trie = buildTrie([[5], [5, 6], [7]]);
    const t = Int32Array.of(5, EOS, PAD, 5, 6, EOS, 7, EOS, PAD);
    assert.deepEqual(Array.from(decisionMaskByRow(t, 3, () => trie)), [1, 1, 0, 1, 1, 0, 1, 0, 0]);
  });

  it("rejects a target row that leaves its trie", () => {
    const trie = buildTrie([[5]]);
    assert.throws(() => decisionMaskByRow(Int32Array.of(5, EOS, 9, EOS), 2, () => trie), /target row 1 is not in its trie/);
  });
});

describe("packQueries", () => {
  it("stacks the facets' item vectors and finds an item's row", () => {
    const dim = 2;
    const items = Object.fromEntries(
      FACETS.map((f, fi) => {
        const counts = facets.map((p) => p[f].length);
        const offsets = Int32Array.from([0, counts[0], counts[0] + counts[1], counts[0] + counts[1] + counts[2]]);
        const data = Float32Array.from({ length: offsets[3] * dim }, (_, k) => 100 * fi + k);
        return [f, { dim, offsets, data }];
      }),
    ) as Record<Facet, { dim: number; offsets: Int32Array; data: Float32Array }>;
    const q = packQueries(items);
    assert.equal(q.dim, dim);
    assert.equal(q.numQueries, 4 + 3 + 2 + 2);
    assert.deepEqual(q.queryOffset, { problems: 0, methods: 4, results: 7, contributions: 9 });
    assert.equal(q.queries.length, q.numQueries * dim);
    for (const f of FACETS) {
      facets.forEach((p, paper) =>
        p[f].forEach((_, item) => {
          const src = (items[f].offsets[paper] + item) * dim;
          const row = q.row(f, paper, item);
          assert.deepEqual(q.queries.subarray(row * dim, (row + 1) * dim), items[f].data.subarray(src, src + dim), `${f} ${paper}:${item}`);
        }),
      );
    }
  });
});

describe("writePackFiles", () => {
  it("writes every array little-endian and the header, leaving no temporary files", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-pack-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const out = path.join(dir, "pack");
    const header = {
      format: "graft-genret-pack",
      version: 1,
      dim: 2,
      maxLen: 2,
      vocabSize: 3,
      facets: ["x"],
      numQueries: 1,
      numTargets: 1,
      numExamples: 1,
    } as unknown as PackHeader;
    const arrays = {
      queries: Float32Array.of(0.5, -1),
      targets: Int32Array.of(2, EOS),
      examples: Int32Array.of(0, 0, 0, -1),
      weights: Float32Array.of(1),
      decisions: Uint8Array.of(1, 0),
    };
    assert.equal(writePackFiles(out, header, arrays), header);
    assert.deepEqual(readdirSync(out).sort(), ["decisions.u8", "examples.i32", "pack.json", "queries.f32", "targets.i32", "weights.f32"]);
    const back = (name: string) => readFileSync(path.join(out, name));
    assert.deepEqual(new Float32Array(new Uint8Array(back("queries.f32")).buffer), arrays.queries);
    assert.deepEqual(new Int32Array(new Uint8Array(back("targets.i32")).buffer), arrays.targets);
    assert.deepEqual(new Int32Array(new Uint8Array(back("examples.i32")).buffer), arrays.examples);
    assert.deepEqual(new Float32Array(new Uint8Array(back("weights.f32")).buffer), arrays.weights);
    assert.deepEqual(new Uint8Array(back("decisions.u8")), arrays.decisions);
    assert.deepEqual(JSON.parse(back("pack.json").toString("utf8")), header);
    assert.ok(!existsSync(path.join(dir, "pack.json")));
  });
});
