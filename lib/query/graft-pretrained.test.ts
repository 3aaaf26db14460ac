/**
 * The shipped generative retriever (models/genret-acl-citegraph, trained on USE-lite vectors)
 * over a graph build of the demo corpus embedded with the text encoder: it installs, and the
 * "graft" retriever embeds the query's items with the model's own embedder (its genret.json),
 * not the graph's, so its lists are the ones the model decodes from USE-lite vectors.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { importCorpus } from "@/lib/corpus/import";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS, type Facet } from "@/lib/corpus";
import { sharedDataDir } from "@/lib/paths";
import { createTestDb, testProvider, type TestDb } from "@/lib/db/testing";
import { createUseLiteEmbedder } from "@/lib/embed/use-lite";
import { generativeFacetLists, loadGenretModel } from "@/lib/genret";
import { installPretrainedModel, PRETRAINED_DIR } from "@/lib/genret/pretrained";
import { buildGraphStage } from "@/lib/graph/build";
import { repoRoot } from "@/lib/paths";
import { clearGraphCache, itemsOf, loadGraph } from "@/lib/retrieve";
import { relatedOptions, relatedPapers } from "./related";

const CORPUS = "acl-citegraph";
const corpusDir = path.join(sharedDataDir(), CORPUS);
const ENCODER = `lsa:${path.join(repoRoot, "models", "acl-contrastive")}`;
// Few beams keep decoding quick; the comparison below decodes with the same number.
const BEAMS = 4;
const K = 10;

describe(`the shipped generative retriever over an encoder-embedded graph (${testProvider})`, { concurrency: false }, () => {
  let store: TestDb | undefined;
  let root = "";
  let genretDir = "";
  const saved = { ...process.env };
  const db = () => {
    if (!store) throw new Error("the store exists only inside tests");
    return store.db;
  };

  before(async () => {
    store = await createTestDb();
    root = mkdtempSync(path.join(os.tmpdir(), "graft-genret-encoder-"));
    // Edge rows are not read here (paper pages are); leaving them out keeps the build short.
    Object.assign(process.env, { GRAFT_DATA_ROOT: root, GRAFT_BEAMS: String(BEAMS), GRAFT_EDGE_ROWS_MAX_PAPERS: "0" });
    clearGraphCache();
    await importCorpus(store.db, await readCorpus(corpusDir), { corpus: CORPUS });
    await buildGraphStage(store.db, { corpus: CORPUS, embedder: ENCODER, workers: 1 });
  });
  after(async () => {
    for (const name of ["GRAFT_DATA_ROOT", "GRAFT_BEAMS", "GRAFT_EDGE_ROWS_MAX_PAPERS"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await store?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test("installs although the graph build's embedder is not the model's", async () => {
    const g = await loadGraph(db(), CORPUS);
    const meta = JSON.parse(readFileSync(path.join(PRETRAINED_DIR, "genret.json"), "utf8")) as { embedder: string };
    assert.match(g.embedder, /^lsa:/);
    assert.match(meta.embedder, /^use-lite@/);
    const installed = await installPretrainedModel(db(), CORPUS);
    genretDir = installed.dir;
    const build = await db().build.findUniqueOrThrow({ where: { id: installed.build } });
    assert.equal(build.status, "complete");
    assert.equal((JSON.parse(build.manifest) as { embedder: { id: string } }).embedder.id, meta.embedder, "the genret build records the model's embedder");
  });

  test("a corpus paper: each facet's list is what the model decodes from USE-lite vectors of its items", async () => {
    const g = await loadGraph(db(), CORPUS);
    const node = 0;
    const paperId = g.externalIds[node];
    const r = await relatedPapers(db(), { corpus: CORPUS, paperId }, relatedOptions.parse({ retriever: "graft", fusion: "rrf", k: K }));
    assert.ok(r.results.length > 0, "the graft retriever answers");

    const model = await loadGenretModel(path.resolve(root, genretDir));
    try {
      const useLite = await createUseLiteEmbedder();
      const items = Object.fromEntries(await Promise.all(FACETS.map(async (f) => [f, await useLite.embed(itemsOf(g, f, node))]))) as Record<
        Facet,
        Float32Array[]
      >;
      const lists = await generativeFacetLists(model, { items }, { beams: BEAMS });
      let compared = 0;
      for (const f of FACETS) {
        const expected = [...new Set((lists[f] ?? []).map((c) => model.paperIds[c.paper]).filter((id) => id !== paperId))].slice(0, K);
        assert.deepEqual(
          r.perFacet[f].map((e) => e.externalId),
          expected,
          f,
        );
        compared += expected.length;
      }
      assert.ok(compared > 0, "the model generated papers");
    } finally {
      await model.decoder.close();
    }
  });

  test("a pasted paper: the generated papers seed the walk of the encoder's graph, keeping their DocIDs", async () => {
    const text =
      "Neural machine translation with attention\n\nWe train an attention-based encoder-decoder network for machine translation and report BLEU gains over phrase-based systems on English-German.";
    const r = await relatedPapers(db(), { corpus: CORPUS, text }, relatedOptions.parse({ retriever: "graft", k: K }));
    assert.equal(r.results.length, K);
    const docIds = r.results.flatMap((x) => x.facets.map((f) => f.docId)).filter((d): d is string => typeof d === "string" && d.length > 0);
    assert.ok(docIds.length > 0, "some results were generated by the model (they carry a DocID)");
  });
});
