import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  decodePaperGraph,
  degreeOf,
  edgeWeightOf,
  encodePaperGraph,
  type FacetCsr,
  neighboursOf,
  type PaperGraph,
  pruneCsr,
  readPaperGraph,
  writePaperGraph,
} from "./csr";
import { csrOf as csrOfRows, type RowEdge, SPLIT_SCORES } from "./csr-testing";

const csrOf = (rows: RowEdge[][]): FacetCsr => csrOfRows(rows, SPLIT_SCORES);

const graph: PaperGraph = {
  numPapers: 4,
  k: 2,
  facets: {
    problems: csrOf([
      [
        [1, 0.9],
        [2, 0.5],
      ],
      [[0, 0.9]],
      [],
      [[1, 0.25]],
    ]),
    results: csrOf([
      [[3, 0.75]],
      [
        [2, 0.5],
        [3, 0.125],
      ],
      [[1, 0.5]],
      [],
    ]),
  },
};

describe("csr", () => {
  const dir = mkdtempSync(join(tmpdir(), "graft-csr-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("round-trips through a file", () => {
    const path = join(dir, "graph.bin");
    writePaperGraph(path, graph);
    const back = readPaperGraph(path);
    assert.equal(back.numPapers, 4);
    assert.equal(back.k, 2);
    assert.deepEqual(Object.keys(back.facets), ["problems", "results"]);
    for (const f of ["problems", "results"] as const) {
      const a = graph.facets[f] as FacetCsr;
      const b = back.facets[f] as FacetCsr;
      for (const key of ["offsets", "targets", "weights", "facetScores", "citationScores"] as const)
        assert.deepEqual(Array.from(b[key]), Array.from(a[key]), `${f}.${key}`);
    }
    assert.equal(readFileSync(path).subarray(0, 8).toString("latin1"), "GRAFTCSR");
  });

  it("looks up neighbours and edge weights", () => {
    const p = graph.facets.problems as FacetCsr;
    assert.equal(degreeOf(p, 0), 2);
    assert.deepEqual(Array.from(neighboursOf(p, 0).targets), [1, 2]);
    assert.equal(edgeWeightOf(p, 0, 2), 0.5);
    assert.equal(edgeWeightOf(p, 2, 0), 0); // no edge
    assert.equal(edgeWeightOf(p, 3, 1), 0.25);
  });

  it("rejects corrupt input", () => {
    const bytes = encodePaperGraph(graph);
    assert.throws(() => decodePaperGraph(bytes.subarray(0, bytes.length - 4)), /truncated|trailing/);
    const bad = bytes.slice();
    bad[0] = 0x58;
    assert.throws(() => decodePaperGraph(bad), /magic/);
    const wrongVersion = bytes.slice();
    new DataView(wrongVersion.buffer).setUint32(8, 99, true);
    assert.throws(() => decodePaperGraph(wrongVersion), /version/);
    const outOfRange = bytes.slice();
    // First target of the first facet sits after the 24-byte header, name, nnz and 5 offsets.
    new DataView(outOfRange.buffer).setInt32(24 + 4 + 8 + 4 + 5 * 4, 7, true);
    assert.throws(() => decodePaperGraph(outOfRange), /out of range/);
    const path = join(dir, "unaligned.bin");
    writeFileSync(path, bytes);
    assert.equal(readPaperGraph(path).numPapers, 4);
  });

  it("decodes from an unaligned buffer by copying", () => {
    const bytes = encodePaperGraph(graph);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const back = decodePaperGraph(shifted.subarray(1));
    assert.equal(edgeWeightOf(back.facets.results as FacetCsr, 1, 3), 0.125);
  });
});

it("prunes rows to the top k", () => {
  const p = pruneCsr(graph.facets.problems as FacetCsr, 1);
  assert.deepEqual(Array.from(p.offsets), [0, 1, 2, 2, 3]);
  assert.deepEqual(Array.from(p.targets), [1, 0, 1]);
  assert.deepEqual(Array.from(p.citationScores), [0.9 * 0.1, 0.9 * 0.1, 0.25 * 0.1].map(Math.fround));
});
