import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "@/lib/random";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { annIndexFileName, exactFacetTopK, FacetAnnIndex, writeAnnIndexFiles } from "./ann";
import { itemsOfPaper, l2Normalise, packFacetItems, type PackedFacetItems } from "./maxsim";
import { prepareFacetBlocks } from "./maxsim-engine";

/** n papers with 0–3 random unit items each (every 7th paper has none). */
function randomCorpus(n: number, dim: number, seed = 1): PackedFacetItems {
  const rand = mulberry32(seed);
  const papers = Array.from({ length: n }, (_, p) =>
    Array.from({ length: p % 7 === 0 ? 0 : 1 + Math.floor(rand() * 3) }, () => l2Normalise(Float32Array.from({ length: dim }, () => rand() - 0.5))),
  );
  return packFacetItems(papers, dim);
}

test("with every item as a neighbour, the ANN top-k is the exact top-k, scores included", () => {
  const items = randomCorpus(200, 16);
  const index = FacetAnnIndex.fromBlocks(prepareFacetBlocks(items), { itemNeighbours: 10_000, efSearch: 10_000 });
  for (const p of [1, 2, 50, 199]) {
    const q = itemsOfPaper(items, p);
    const ann = index.search(q, 20, p);
    const exact = exactFacetTopK(items, q, 20, p);
    assert.deepEqual(Array.from(ann.targets), Array.from(exact.targets));
    assert.deepEqual(Array.from(ann.scores), Array.from(exact.scores));
    assert.ok(!ann.targets.includes(p), "the excluded paper is never returned");
    assert.ok(
      Array.from(ann.targets).every((t) => items.offsets[t + 1] > items.offsets[t]),
      "papers without items are never returned",
    );
  }
});

test("with few neighbours per item, the ANN still finds most of the exact top-10, with exact scores", () => {
  const items = randomCorpus(500, 16, 3);
  const index = FacetAnnIndex.fromItems(items, { itemNeighbours: 64, efSearch: 64 });
  const q = itemsOfPaper(items, 10);
  const ann = index.search(q, 10, 10);
  const exact = exactFacetTopK(items, q, 10, 10);
  const want = new Set(exact.targets);
  assert.ok(Array.from(ann.targets).filter((t) => want.has(t)).length >= 8);
  // Whatever it returns carries the exact s_f of that paper.
  const all = exactFacetTopK(items, q, 500, 10);
  const scoreOf = new Map(Array.from(all.targets, (t, i) => [t, all.scores[i]]));
  ann.targets.forEach((t, i) => assert.equal(ann.scores[i], scoreOf.get(t)));
  assert.ok(index.candidates(q, 10).length < 500, "only a part of the corpus is scored");
});

test("an empty query or an empty facet gives no neighbours", () => {
  const items = randomCorpus(30, 8);
  const index = FacetAnnIndex.fromItems(items);
  assert.equal(index.search([], 5).targets.length, 0);
  const empty = FacetAnnIndex.fromItems(packFacetItems([[], []], 8));
  assert.equal(empty.search(itemsOfPaper(items, 1), 5).targets.length, 0);
  assert.throws(() => index.search([new Float32Array(4)], 5), /expected 8/);
});

test("a rebuild with the same parameters gives the same index (seeded)", () => {
  const items = randomCorpus(300, 16, 5);
  const q = itemsOfPaper(items, 3);
  const a = FacetAnnIndex.fromItems(items, { itemNeighbours: 16, efSearch: 16 }).candidates(q);
  const b = FacetAnnIndex.fromItems(items, { itemNeighbours: 16, efSearch: 16 }).candidates(q);
  assert.deepEqual(Array.from(a), Array.from(b));
});

test("built in slices that yield to the event loop, the index is the one built at once", async () => {
  const items = randomCorpus(3000, 8, 9);
  const blocks = prepareFacetBlocks(items, 64);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const slow = await FacetAnnIndex.fromBlocksAsync(blocks, { itemNeighbours: 32, efSearch: 32 });
  clearInterval(timer);
  const fast = FacetAnnIndex.fromBlocks(blocks, { itemNeighbours: 32, efSearch: 32 });
  assert.equal(slow.stats.items, fast.stats.items);
  assert.ok(ticks > 0, "other work ran while the index was built");
  for (const p of [0 + 1, 17, 2999])
    assert.deepEqual(Array.from(slow.search(itemsOfPaper(items, p), 10, p).targets), Array.from(fast.search(itemsOfPaper(items, p), 10, p).targets));
});

test("over the packed items or over the blocks, the index is the same (labels in the blocks' order)", async () => {
  const items = randomCorpus(800, 8, 11);
  const params = { itemNeighbours: 24, efSearch: 24 };
  const fromBlocks = FacetAnnIndex.fromBlocks(prepareFacetBlocks(items, 64), params);
  const fromItems = FacetAnnIndex.fromItems(items, params);
  const fromItemsAsync = await FacetAnnIndex.fromItemsAsync(items, params);
  for (const p of [1, 99, 555]) {
    const q = itemsOfPaper(items, p);
    const want = fromBlocks.search(q, 15, p);
    for (const ix of [fromItems, fromItemsAsync]) {
      assert.deepEqual(Array.from(ix.candidates(q, p)), Array.from(fromBlocks.candidates(q, p)));
      const got = ix.search(q, 15, p);
      assert.deepEqual(Array.from(got.targets), Array.from(want.targets));
      assert.deepEqual(Array.from(got.scores), Array.from(want.scores));
    }
  }
});

test("readOrBuild writes the index atomically once and reads it back: the same neighbours, no rebuild", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-ann-file-"));
  try {
    const items = randomCorpus(600, 8, 13);
    const params = { itemNeighbours: 16, efSearch: 16 };
    const file = path.join(dir, annIndexFileName("methods", items, params));
    const built = await FacetAnnIndex.readOrBuild(items, file, params);
    assert.equal(built.stats.read, undefined);
    assert.deepEqual(readdirSync(dir), [path.basename(file)], "no temporary file is left behind");
    const read = await FacetAnnIndex.readOrBuild(items, file, params);
    assert.equal(read.stats.read, true);
    assert.equal(read.stats.items, built.stats.items);
    for (const p of [2, 300, 599]) {
      const q = itemsOfPaper(items, p);
      assert.deepEqual(Array.from(read.candidates(q, p)), Array.from(built.candidates(q, p)));
      assert.deepEqual(read.search(q, 10, p), built.search(q, 10, p));
    }
    // The name follows the items and the build parameters: other items or settings never read it.
    assert.notEqual(annIndexFileName("methods", randomCorpus(600, 8, 14), params), path.basename(file));
    assert.notEqual(annIndexFileName("methods", items, { m: 8 }), path.basename(file));
    assert.notEqual(annIndexFileName("results", items, params), path.basename(file));
    // A file of another index, or a damaged one, is rebuilt (and replaced).
    const other = randomCorpus(50, 8, 15);
    await FacetAnnIndex.fromItems(other).write(file);
    await assert.rejects(FacetAnnIndex.read(items, file, params), /holds \d+ items of dimension 8, expected \d+ of 8/);
    const rebuilt = await FacetAnnIndex.readOrBuild(items, file, params);
    assert.equal(rebuilt.stats.read, undefined);
    assert.equal((await FacetAnnIndex.read(items, file, params)).stats.items, built.stats.items);
    // onRead hears the outcome of reading before any rebuild: the index, or null.
    const heard: (FacetAnnIndex | null)[] = [];
    const again = await FacetAnnIndex.readOrBuild(items, file, params, (ix) => heard.push(ix));
    assert.equal(heard.length, 1);
    assert.equal(heard[0], again);
    writeFileSync(file, "not an index");
    let builtYet = false;
    const damaged = FacetAnnIndex.readOrBuild(items, file, params, (ix) => {
      assert.equal(ix, null);
      assert.equal(builtYet, false, "heard before the rebuild");
      heard.push(ix);
    });
    builtYet = (await damaged).stats.read === undefined;
    assert.ok(builtYet);
    assert.equal(heard.length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("writeAnnIndexFiles writes one file per facet with items under the name serving looks for, and a rerun keeps intact ones", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-ann-files-"));
  try {
    const problems = randomCorpus(400, 8, 21);
    const methods = randomCorpus(400, 8, 22);
    const empty = packFacetItems([[], [], []], 8);
    const facets = [
      ["problems", problems],
      ["methods", methods],
      ["results", empty],
    ] as const;
    const progress: string[] = [];
    const first = await writeAnnIndexFiles(dir, facets, { onProgress: (f, d, t) => progress.push(`${f} ${d}/${t}`) });
    assert.deepEqual(
      first.map((a) => [a.facet, a.file, a.items, a.reused]),
      [
        ["problems", annIndexFileName("problems", problems), problems.offsets[400], false],
        ["methods", annIndexFileName("methods", methods), methods.offsets[400], false],
      ],
      "no file for a facet without items",
    );
    assert.deepEqual(readdirSync(dir).sort(), first.map((a) => a.file).sort(), "no temporary file is left behind");
    assert.ok(progress.includes(`problems ${problems.offsets[400]}/${problems.offsets[400]}`), "progress reaches every item");
    for (const a of first) assert.equal(a.bytes, statSync(path.join(dir, a.file)).size);
    // What the files hold is the index built in memory over the same items (default parameters).
    const read = await FacetAnnIndex.read(methods, path.join(dir, first[1].file));
    const built = FacetAnnIndex.fromItems(methods);
    for (const p of [1, 200, 399]) assert.deepEqual(read.search(itemsOfPaper(methods, p), 10, p), built.search(itemsOfPaper(methods, p), 10, p));

    // A rerun (a resumed build) reads intact files back instead of rebuilding them, and rebuilds a damaged one.
    const inode = (f: string) => statSync(path.join(dir, f)).ino;
    const kept = inode(first[0].file);
    writeFileSync(path.join(dir, first[1].file), "damaged");
    const again = await writeAnnIndexFiles(dir, facets);
    assert.deepEqual(
      again.map((a) => [a.facet, a.reused]),
      [
        ["problems", true],
        ["methods", false],
      ],
    );
    assert.equal(inode(first[0].file), kept, "the intact file was not rewritten");
    assert.equal(again[0].seconds, 0);
    assert.equal((await FacetAnnIndex.read(methods, path.join(dir, first[1].file))).stats.items, methods.offsets[400]);

    // An aborted step stops before the next facet.
    const stop = new AbortController();
    stop.abort();
    await assert.rejects(writeAnnIndexFiles(dir, facets, { signal: stop.signal }), { name: "AbortError" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
