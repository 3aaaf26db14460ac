import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTestDb, type TestDb, testProvider } from "@/lib/db/testing";
import { embedWithCache, textKey } from "./cache";
import { FakeEmbedder, fakeVector } from "./fixtures/fake-embedder";
import {
  decodeSliceVectors,
  EMBED_KINDS,
  embedMissingInSlices,
  embedSlice,
  encodeSliceVectors,
  missingEmbedSlices,
  planEmbedSlices,
  SLICE_UNIT,
  sliceItemsFor,
  storeEmbedSlices,
} from "./shards";

// Texts a sharded build's cache lacks, embedded slice by slice through the store, must land in
// the cache exactly as one process's embedWithCache puts them there: the same rows, in the same
// order, the same bytes.

const FAKE = fileURLToPath(new URL("./fixtures/fake-embedder.ts", import.meta.url));
const DIM = 8;
const FAKE_ID = `fake:${DIM}`;

/** Items with repeats (a repeated text is embedded once), 1,100 distinct. */
const texts = Array.from({ length: 1300 }, (_, i) => i % 1100).map((j) => `item ${j}: ${j % 7 === 0 ? "a parser" : "a translation model"} for ${j} languages`);

describe("slice sizes and the vectors' row layout", () => {
  test("slices are whole multiples of the pool's chunk, about one per shard, each row under 16 MiB", () => {
    assert.equal(SLICE_UNIT, 256);
    assert.equal(sliceItemsFor(1100, 3, DIM), 512, "ceil(1100 / 3) = 367, rounded up to 512");
    assert.equal(sliceItemsFor(10, 3, DIM), 256, "never less than one chunk");
    assert.equal(sliceItemsFor(350_000, 3, 512), 8192, "512-d vectors: 8,192 rows = 16 MiB");
    assert.equal(sliceItemsFor(350_000, 3, 256), 16_384);
    assert.equal(sliceItemsFor(350_000, 1000, 256), 512, "many shards: small slices");
  });

  test("a slice's vectors row round-trips, from an offset that is not a multiple of 4", () => {
    const keys = ["a", "b", "c"].map(textKey);
    const rows = ["a", "b", "c"].map((t) => fakeVector(t, DIM));
    const bytes = encodeSliceVectors(keys, rows, DIM);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const back = decodeSliceVectors(shifted.subarray(1));
    assert.equal(back.dim, DIM);
    assert.deepEqual(
      back.keys.map((k) => k.toString("hex")),
      keys.map((k) => k.toString("hex")),
    );
    assert.deepEqual(back.rows, rows);
    assert.throws(() => decodeSliceVectors(bytes.subarray(0, bytes.length - 4)), /announces/);
  });

  test("the plan's fingerprint is a function of the embedder and the missing texts", () => {
    const keys = texts.slice(0, 600).map(textKey);
    const settings = { spec: FAKE_ID, embedderId: FAKE_ID, dim: DIM, shards: 3 };
    const plan = planEmbedSlices(keys, settings);
    assert.deepEqual({ sliceItems: plan.sliceItems, slices: plan.slices, texts: plan.texts }, { sliceItems: 256, slices: 3, texts: 600 });
    assert.equal(planEmbedSlices(keys, settings).id, plan.id);
    assert.notEqual(planEmbedSlices(keys.slice(1), settings).id, plan.id);
    assert.notEqual(planEmbedSlices(keys, { ...settings, embedderId: "fake:8b" }).id, plan.id);
  });
});

describe(`embedding slices through the store (${testProvider})`, { concurrency: false }, () => {
  let store: TestDb;
  let buildId = 0;
  let root = "";
  before(async () => {
    store = await createTestDb();
    root = mkdtempSync(path.join(os.tmpdir(), "graft-embed-shards-"));
    const corpus = await store.db.corpus.create({ data: { name: "slices" } });
    buildId = (await store.db.build.create({ data: { corpusId: corpus.id, dir: "slices/build-1", status: "running" } })).id;
  });
  after(async () => {
    await store?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });
  const files = (dir: string) => ["manifest.json", "vectors.f32", "keys.bin"].map((f) => readFileSync(path.join(dir, f)));

  test("slice jobs' vectors, appended in slice order, make the cache one process makes, byte for byte", async () => {
    const db = store.db;
    // One process, from an empty cache; then the sliced path from a cache holding the first 100 texts.
    const whole = path.join(root, "whole");
    await embedWithCache(new FakeEmbedder(DIM), texts, { dir: whole });
    const sliced = path.join(root, "sliced");
    await embedWithCache(new FakeEmbedder(DIM), texts.slice(0, 100), { dir: sliced });

    const seen: number[][] = [];
    const appended = await embedMissingInSlices(db, buildId, texts, {
      dir: sliced,
      spec: FAKE_ID,
      embedder: { id: FAKE_ID, dim: DIM },
      shards: 3,
      workers: 1,
      runSlices: async (plan) => {
        assert.equal(plan.texts, 1000, "the 1,000 distinct texts the cache lacks");
        assert.deepEqual([plan.sliceItems, plan.slices], [512, 2]);
        assert.equal(await db.graphShard.count({ where: { buildId, kind: EMBED_KINDS.texts } }), 2);
        // Slices in reverse: the order they are embedded in does not matter.
        for (const s of (await missingEmbedSlices(db, buildId, plan)).reverse()) {
          const steps: number[] = [];
          const r = await embedSlice(db, { buildId, plan: plan.id, slice: s }, { factoryModule: FAKE, betweenSteps: (d) => void steps.push(d) });
          assert.equal(r.computed, true);
          seen.push(steps);
          const again = await embedSlice(db, { buildId, plan: plan.id, slice: s }, { factoryModule: FAKE });
          assert.equal(again.computed, false, "a stored slice is not embedded again");
        }
        assert.deepEqual(await missingEmbedSlices(db, buildId, plan), []);
      },
    });
    assert.equal(appended, 1000);
    assert.deepEqual(seen, [[256], [256]], "each slice of 512 in two steps of one chunk, with a safe point between them");
    const [m1, v1, k1] = files(whole);
    const [m2, v2, k2] = files(sliced);
    assert.deepEqual(JSON.parse(m2.toString()), JSON.parse(m1.toString()));
    assert.ok(v1.equals(v2), "vectors.f32 is byte-identical");
    assert.ok(k1.equals(k2), "keys.bin is byte-identical");
    assert.equal(await db.graphShard.count({ where: { buildId } }), 0, "the slice rows are dropped once their vectors are in the cache");

    const none = await embedMissingInSlices(db, buildId, texts, {
      dir: sliced,
      spec: FAKE_ID,
      embedder: { id: FAKE_ID, dim: DIM },
      shards: 3,
      runSlices: () => Promise.reject(new Error("nothing is missing: no slice may run")),
    });
    assert.equal(none, 0);
  });

  test("a worker whose embedder is another model stores nothing; a superseded plan's slice is refused", async () => {
    const db = store.db;
    const keys = texts.slice(0, 300).map(textKey);
    const plan = planEmbedSlices(keys, { spec: FAKE_ID, embedderId: "fake:8@elsewhere", dim: DIM, shards: 2, workers: 1 });
    assert.equal(await storeEmbedSlices(db, buildId, plan, texts.slice(0, 300)), true);
    assert.equal(await storeEmbedSlices(db, buildId, plan, texts.slice(0, 300)), false, "a resumed run keeps the stored slices");
    await assert.rejects(embedSlice(db, { buildId, plan: plan.id, slice: 0 }, { factoryModule: FAKE }), /another model/);
    assert.equal(await db.graphShard.count({ where: { buildId, kind: EMBED_KINDS.vectors } }), 0);

    const other = planEmbedSlices(keys.slice(1), { spec: FAKE_ID, embedderId: FAKE_ID, dim: DIM, shards: 2, workers: 1 });
    assert.equal(await storeEmbedSlices(db, buildId, other, texts.slice(1, 300)), true);
    assert.equal(await db.graphShard.count({ where: { buildId, plan: plan.id } }), 0, "the old plan's rows go");
    await assert.rejects(embedSlice(db, { buildId, plan: plan.id, slice: 0 }, { factoryModule: FAKE }), /no embedding plan/);
  });
});
