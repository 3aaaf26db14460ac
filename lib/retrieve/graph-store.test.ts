import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseAuthors, FACETS } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { clearGraphCache, itemsOf, loadGraph, vectorsOf } from "./graph-store";

// A served build holds its display fields and item texts packed and its item vectors in the
// vector cache until asked: what it reads back must be what the store and the cache hold.

describe(`served build: packed fields, texts and vectors read back exact (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-graph-store-");

  test("display fields and item texts are the store's; vectors read from the cache equal the packed ones", async () => {
    clearGraphCache();
    await buildGraphStage(t.db, { corpus: "mini", k: 3, workers: 1 });
    const g = await loadGraph(t.db, "mini");
    const rows = await t.db.paper.findMany({
      where: { id: { in: g.dbIds } },
      select: {
        id: true,
        externalId: true,
        title: true,
        year: true,
        venue: true,
        authors: true,
        facetItems: { select: { facet: true, text: true }, orderBy: { position: "asc" } },
      },
    });
    assert.equal(rows.length, g.papers.length);
    let items = 0;
    for (const r of rows) {
      const node = g.indexOfDbId.get(r.id) as number;
      const p = g.papers[node];
      const expected = { externalId: r.externalId, title: r.title, year: r.year, venue: r.venue, authors: parseAuthors(r.authors) };
      assert.deepEqual({ externalId: p.externalId, title: p.title, year: p.year, venue: p.venue, authors: p.authors }, expected);
      assert.deepEqual(JSON.parse(JSON.stringify(p)), expected, "serialised as its fields");
      for (const f of FACETS) {
        const texts = itemsOf(g, f, node);
        assert.deepEqual(
          texts,
          r.facetItems.filter((i) => i.facet === f).map((i) => i.text),
          `${r.externalId} ${f}`,
        );
        const fromFile = vectorsOf(g, f, node);
        assert.equal(fromFile.length, texts.length);
        texts.forEach((text, i) => assert.deepEqual(Array.from(fromFile[i]), Array.from(g.vectorOf(text) as Float32Array), `${r.externalId} ${f} item ${i}`));
        items += texts.length;
      }
    }
    assert.ok(items > 0);
    // Once a facet's vectors are packed (a path reading all of them asked), the candidates' are views of them, the same values.
    for (const f of FACETS) {
      const packed = g.vectors[f];
      assert.equal(packed.data.length, packed.offsets[g.papers.length] * g.dim);
      for (let node = 0; node < g.papers.length; node++) {
        const views = vectorsOf(g, f, node);
        views.forEach((v, i) => {
          assert.equal(v.buffer, packed.data.buffer, "a view of the packed vectors");
          assert.deepEqual(Array.from(v), Array.from(g.vectorOf(itemsOf(g, f, node)[i]) as Float32Array));
        });
      }
    }
  });
});
