import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus";
import { createTestDb, type TestDb, testProvider } from "@/lib/db/testing";
import { mulberry32 } from "@/lib/random";
import { citationRows } from "./citation-score";
import { packFacetItems, type PackedFacetItems } from "./maxsim";
import { MaxSimEngine, prepareFacetBlocks } from "./maxsim-engine";
import {
  computeShard,
  decodeShardLists,
  dropShardData,
  encodeShardLists,
  mergeShardLists,
  missingShardTasks,
  planShards,
  readMergedShardLists,
  shardRanges,
  storeShardInputs,
} from "./shards";
import { type FacetTopK, facetTopKOnBlocks } from "./topk";
import type { RankedNeighbours } from "./topk-accumulator";

// A sharded kernel must give exactly the lists of one pass over the same chunks: the same
// entries, the same float bits, in the same order, however the shards are merged.

function unit(rand: () => number, dim: number): Float32Array {
  const v = Float32Array.from({ length: dim }, () => rand() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Papers with 0..4 items (some without any), so blocks span item-count groups. */
function randomFacet(seed: number, n: number, dim: number): PackedFacetItems {
  const rand = mulberry32(seed);
  return packFacetItems(
    Array.from({ length: n }, (_, p) => Array.from({ length: p % 11 === 3 ? 0 : 1 + Math.floor(rand() * 4) }, () => unit(rand, dim))),
    dim,
  );
}

function randomRefs(seed: number, n: number): number[][] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * (n + 20))));
}

function sameLists(got: RankedNeighbours | null, want: RankedNeighbours | null, what: string): void {
  assert.ok(got && want, `${what}: both lists present`);
  assert.deepEqual(Array.from(got.offsets), Array.from(want.offsets), `${what} offsets`);
  assert.deepEqual(Array.from(got.targets), Array.from(want.targets), `${what} targets`);
  assert.deepEqual(Array.from(got.scores), Array.from(want.scores), `${what} scores`);
  assert.deepEqual(Array.from(got.aux), Array.from(want.aux), `${what} aux`);
}

const N = 120;
const DIM = 16;
const K = 8;
const CHUNK_ITEMS = 24;
const WEIGHTS = { alpha: 0.75, beta: 0.25 };

describe("sharded all-pairs kernel", () => {
  let engine: MaxSimEngine;
  before(async () => {
    engine = await MaxSimEngine.create();
  });
  after(async () => {
    await engine.release();
  });

  it("cuts chunk rows into contiguous, non-empty ranges of about equal work", () => {
    const blocks = prepareFacetBlocks(randomFacet(1, N, DIM), CHUNK_ITEMS);
    const n = blocks.chunks.length;
    assert.ok(n > 8, `${n} chunks`);
    for (const shards of [1, 2, 3, 5, n, n + 4]) {
      const r = shardRanges(blocks, shards);
      assert.equal(r.length, Math.min(shards, n));
      assert.equal(r[0].from, 0);
      assert.equal(r[r.length - 1].to, n);
      for (let i = 0; i < r.length; i++) {
        assert.ok(r[i].to > r[i].from, `range ${i} of ${shards} is empty`);
        if (i > 0) assert.equal(r[i].from, r[i - 1].to);
      }
    }
    assert.deepEqual(shardRanges({ numPapers: 3, dim: DIM, chunks: [] }, 4), [{ from: 0, to: 0 }]);
  });

  it("merged shard lists equal one pass's, bit for bit, in any merge order", async () => {
    const items = randomFacet(2, N, DIM);
    const citations = citationRows(randomRefs(3, N));
    const blocks = prepareFacetBlocks(items, CHUNK_ITEMS);
    const whole = await facetTopKOnBlocks(blocks, engine, { k: K, citations, ...WEIGHTS });
    const parts: FacetTopK[] = [];
    for (const chunkRows of shardRanges(blocks, 4)) parts.push(await facetTopKOnBlocks(blocks, engine, { k: K, citations, ...WEIGHTS, chunkRows }));
    for (const order of [parts, [...parts].reverse(), [parts[2], parts[0], parts[3], parts[1]]]) {
      // Through the stored encoding, as block jobs hand them over.
      const merged = mergeShardLists(
        N,
        K,
        order.map((p) => decodeShardLists(encodeShardLists(p))),
      );
      sameLists(merged.neighbours, whole.neighbours, "facet-score lists");
      sameLists(merged.linked, whole.linked, "linked lists");
      assert.equal(merged.stats.blocks, whole.stats.blocks, "every block computed once");
      assert.equal(merged.stats.linkedPairs, whole.stats.linkedPairs, "every linked pair gathered once");
    }
  });
});

describe(`shard inputs and lists in the store (${testProvider})`, () => {
  let store: TestDb;
  let buildId = 0;
  let engineFor: MaxSimEngine;
  before(async () => {
    engineFor = await MaxSimEngine.create();
    store = await createTestDb();
    const corpus = await store.db.corpus.create({ data: { name: "shards" } });
    buildId = (await store.db.build.create({ data: { corpusId: corpus.id, dir: "shards/build-1", status: "running" } })).id;
  });
  after(async () => {
    await engineFor?.release();
    await store?.cleanup();
  });

  it("block jobs' lists from the stored inputs merge into one pass's lists; finished shards are kept", async () => {
    const db = store.db;
    const packed: Partial<Record<Facet, PackedFacetItems>> = {};
    FACETS.forEach((f, i) => (packed[f] = randomFacet(10 + i, N, DIM)));
    const refs = randomRefs(4, N);
    const plan = planShards(packed, refs, { shards: 3, k: K, ...WEIGHTS, chunkItems: CHUNK_ITEMS });
    assert.equal(plan.tasks.length, 3 * FACETS.length);
    assert.equal(planShards(packed, refs, { shards: 3, k: K, ...WEIGHTS, chunkItems: CHUNK_ITEMS }).id, plan.id, "the fingerprint is a function of the inputs");
    assert.equal(await storeShardInputs(db, buildId, plan, packed, refs), true);
    assert.equal(await storeShardInputs(db, buildId, plan, packed, refs), false, "a resumed run keeps the stored inputs");
    assert.equal((await missingShardTasks(db, buildId, plan)).length, plan.tasks.length);

    for (const t of plan.tasks) {
      const r = await computeShard(db, { buildId, plan: plan.id, facet: t.facet, shard: t.shard });
      assert.equal(r.computed, true);
    }
    const again = await computeShard(db, { buildId, plan: plan.id, facet: plan.tasks[0].facet, shard: 0 });
    assert.equal(again.computed, false, "a stored shard is not computed again");
    assert.deepEqual(await missingShardTasks(db, buildId, plan), []);

    const citations = citationRows(refs);
    for (const f of FACETS) {
      const whole = await facetTopKOnBlocks(prepareFacetBlocks(packed[f] as PackedFacetItems, CHUNK_ITEMS), engineFor, { k: K, citations, ...WEIGHTS });
      const merged = await readMergedShardLists(db, buildId, plan, f);
      sameLists(merged.neighbours, whole.neighbours, `${f} facet-score lists`);
      sameLists(merged.linked, whole.linked, `${f} linked lists`);
    }

    // Other inputs (a resumed build whose corpus changed): a new plan, the old rows go.
    const other = planShards({ ...packed, problems: randomFacet(99, N, DIM) }, refs, { shards: 3, k: K, ...WEIGHTS, chunkItems: CHUNK_ITEMS });
    assert.notEqual(other.id, plan.id);
    assert.equal(await storeShardInputs(db, buildId, other, packed, refs), true);
    assert.equal(await db.graphShard.count({ where: { buildId, plan: plan.id } }), 0);
    assert.equal((await missingShardTasks(db, buildId, other)).length, other.tasks.length);
    await assert.rejects(computeShard(db, { buildId, plan: plan.id, facet: "problems", shard: 0 }), /no shard plan/);
    assert.ok((await dropShardData(db, buildId)) > 0);
    assert.equal(await db.graphShard.count(), 0);
  });
});
