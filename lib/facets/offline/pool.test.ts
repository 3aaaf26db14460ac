import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { readCorpus } from "@/lib/corpus/read";
import { sharedDataDir } from "@/lib/paths";
import type { ExtractionResult, PaperInput } from "@/lib/facets/extractor";
import { offlineResult } from "./extractor";
import { loadModel } from "./model";
import { OfflineExtractorPool } from "./pool";

const CORPUS = path.join(sharedDataDir(), "acl-citegraph");
const haveCorpus = existsSync(path.join(CORPUS, "papers.jsonl"));

/** Papers that exercise every path: real abstracts, a title only, no text at all, full text. */
async function papers(n: number): Promise<PaperInput[]> {
  const real = haveCorpus
    ? (await readCorpus(CORPUS)).papers.slice(0, n).map((p) => ({ title: p.title, abstract: p.abstract ?? "" }))
    : Array.from({ length: n }, (_, i) => ({
        title: `Paper ${i} on parsing`,
        abstract: `We propose method ${i} for dependency parsing. Experiments show gains of ${i % 7} points. We release the code.`,
      }));
  return [
    ...real,
    { title: "A title and nothing else", abstract: "" },
    { title: "", abstract: "" },
    { title: "With a body", abstract: real[0].abstract, body: "Introduction\nWe study parsing. We propose a new parser.\nResults\nIt is faster." },
  ];
}

test("two threads give the in-process results, paper by paper, in the order the papers were given", async () => {
  const input = await papers(600);
  const model = loadModel();
  const expected = input.map((p) => offlineResult(p, model));
  assert.ok(expected.some((r) => !r.ok) && expected.some((r) => r.ok));
  // A small chunk size: many chunks over both threads, answered out of order.
  const pool = await OfflineExtractorPool.create(model, { threads: 2, chunkSize: 7 });
  try {
    const settledOrder: number[] = [];
    const results = await Promise.all(
      input.map((p, i) =>
        pool.extract(p).then((r) => {
          settledOrder.push(i);
          return r;
        }),
      ),
    );
    assert.deepEqual(results, expected);
    assert.deepEqual(
      settledOrder,
      input.map((_, i) => i),
    );
    // Later calls reuse the threads.
    assert.deepEqual(await pool.extract(input[5]), expected[5]);
  } finally {
    await pool.close();
  }
});

test("an aborted signal rejects the papers waiting under it with its reason; others are answered", async () => {
  const input = await papers(20);
  const pool = await OfflineExtractorPool.create(loadModel(), { threads: 2, chunkSize: 4 });
  try {
    const controller = new AbortController();
    const reason = new Error("interrupted");
    const aborted = input.map((p) => pool.extract(p, { signal: controller.signal }));
    const kept: Promise<ExtractionResult> = pool.extract(input[0]);
    controller.abort(reason);
    for (const r of await Promise.allSettled(aborted)) assert.deepEqual(r, { status: "rejected", reason });
    assert.equal((await kept).ok, true);
    await assert.rejects(pool.extract(input[1], { signal: controller.signal }), reason);
  } finally {
    await pool.close();
  }
  await assert.rejects(pool.extract(input[0]), /closed/);
});
