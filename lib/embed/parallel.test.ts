import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fakeVector } from "./fixtures/fake-embedder";
import { fitLsa, saveLsaModel } from "./lsa";
import { createEmbedPool, ParallelEmbedder, embedParallel } from "./parallel";
import { createUseLiteEmbedder } from "./use-lite";

const FAKE = fileURLToPath(new URL("./fixtures/fake-embedder.ts", import.meta.url));
const items = (n: number) => Array.from({ length: n }, (_, i) => `facet item ${i}: ${i % 3 === 0 ? "a parser" : "a translation model"} for ${i} languages`);

describe("parallel embedding", () => {
  test("2 USE-lite worker processes give exactly the serial vectors, in order, with progress", async () => {
    const texts = items(200);
    const progress: number[] = [];
    const pool = await ParallelEmbedder.create("use-lite", { workers: 2, chunkSize: 64, onProgress: (d, t) => progress.push(d / t) });
    let parallel: Float32Array[];
    try {
      assert.equal(pool.dim, 512);
      assert.match(pool.id, /^use-lite@/);
      parallel = await pool.embed(texts);
      assert.deepEqual(await pool.embed([]), []);
    } finally {
      await pool.close();
    }
    const serial = await (await createUseLiteEmbedder()).embed(texts);
    assert.equal(parallel.length, 200);
    // Chunks are multiples of USE-lite's batch of 32, so each text sees the same batch as in
    // the serial run and the floats are identical, not just close.
    assert.deepEqual(parallel, serial);
    assert.deepEqual(
      progress,
      [...progress].sort((a, b) => a - b),
    );
    assert.equal(progress.length, 4);
    assert.equal(progress.at(-1), 1);
  });

  test("one worker of an LSA encoder embeds in process: the pool's vectors, with progress per chunk", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-embed-pool-"));
    try {
      const texts = items(30);
      const spec = `lsa:${dir}`;
      saveLsaModel(dir, fitLsa(texts, { dims: 4 }));
      const progress: number[] = [];
      const inProcess = await createEmbedPool(spec, { workers: 1, chunkSize: 8, onProgress: (d) => progress.push(d) });
      assert.ok(!(inProcess instanceof ParallelEmbedder), "no worker process for one LSA worker");
      const mine = await inProcess.embed(texts);
      await inProcess.close();
      assert.deepEqual(progress, [8, 16, 24, 30]);
      const pool = await createEmbedPool(spec, { workers: 1, chunkSize: 8, mode: "process" });
      assert.ok(pool instanceof ParallelEmbedder, "an explicit mode keeps the worker");
      try {
        assert.equal(pool.id, inProcess.id);
        assert.deepEqual(await pool.embed(texts), mine);
      } finally {
        await pool.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("worker threads work too, and results keep input order across many chunks", async () => {
    const texts = items(53);
    const v = await embedParallel("fake:8", texts, { mode: "thread", workers: 2, chunkSize: 5, factoryModule: FAKE });
    texts.forEach((t, i) => assert.deepEqual(v[i], fakeVector(t, 8)));
  });

  for (const mode of ["process", "thread"] as const) {
    test(`a worker ${mode} that dies rejects with a clear error, and the pool stays failed`, async () => {
      const pool = await ParallelEmbedder.create("fake:8", { mode, workers: 2, chunkSize: 4, factoryModule: FAKE });
      try {
        const texts = items(20);
        texts[13] = "__exit__";
        await assert.rejects(pool.embed(texts), new RegExp(`Embedding worker \\d \\((pid|thread) .*\\) exited with code 7`));
        await assert.rejects(pool.embed(["fine"]), /exited with code 7/);
      } finally {
        await pool.close();
      }
    });
  }

  test("an error thrown by the embedder in a worker names the failing texts", async () => {
    const pool = await ParallelEmbedder.create("fake:8", { workers: 2, chunkSize: 4, factoryModule: FAKE });
    try {
      const texts = items(12);
      texts[5] = "__throw__";
      await assert.rejects(pool.embed(texts), /failed on texts 4-7: fake embedder was asked to throw/);
    } finally {
      await pool.close();
    }
  });

  test("a spec the workers cannot load fails at start", async () => {
    await assert.rejects(ParallelEmbedder.create("no-such-model", { workers: 2 }), /could not load "no-such-model": Unknown embedder/);
    await assert.rejects(ParallelEmbedder.create("use-lite", { workers: 0 }), /workers must be a positive integer/);
  });
});
