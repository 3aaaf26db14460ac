import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { VectorCacheWriter, cacheDirFor, chunkedProgress, embedWithCache, readVectorCache, textKey } from "./cache";
import { FakeEmbedder, fakeVector } from "./fixtures/fake-embedder";

const root = mkdtempSync(path.join(os.tmpdir(), "graft-vcache-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(root, `c${n++}`);

const texts = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} item ${i}`);

describe("embedWithCache", () => {
  test("first call embeds each distinct text once; a second call embeds nothing", async () => {
    const dir = freshDir();
    const e = new FakeEmbedder(8);
    const input = [...texts("a", 5), "a item 0", "a item 3"];
    const v1 = await embedWithCache(e, input, { dir });
    assert.equal(v1.length, 7);
    assert.equal(e.embeddedTexts, 5);
    input.forEach((t, i) => assert.deepEqual(v1[i], fakeVector(t, 8)));

    let progress: [number, number][] = [];
    const v2 = await embedWithCache(e, input, { dir, onProgress: (d, t) => progress.push([d, t]) });
    assert.equal(e.embeddedTexts, 5, "no new texts embedded");
    assert.equal(e.calls.length, 1, "the embedder was not even called");
    assert.deepEqual(progress, [[0, 0]]);
    assert.deepEqual(v2, v1);

    // A new embedder object (new process, same model) reuses the cache too.
    const e2 = new FakeEmbedder(8);
    progress = [];
    assert.deepEqual(await embedWithCache(e2, input, { dir, onProgress: (d, t) => progress.push([d, t]) }), v1);
    assert.equal(e2.calls.length, 0);
  });

  test("partial overlap embeds only the missing texts, in chunks that are each committed", async () => {
    const dir = freshDir();
    const e = new FakeEmbedder(8);
    await embedWithCache(e, texts("b", 4), { dir });
    const input = [...texts("b", 4), ...texts("c", 5)];
    const progress: [number, number][] = [];
    const v = await embedWithCache(e, input, { dir, chunkSize: 2, onProgress: (d, t) => progress.push([d, t]) });
    assert.deepEqual(e.calls.slice(1), [["c item 0", "c item 1"], ["c item 2", "c item 3"], ["c item 4"]]);
    assert.deepEqual(progress, [
      [0, 5],
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    input.forEach((t, i) => assert.deepEqual(v[i], fakeVector(t, 8)));
    assert.equal(readVectorCache(dir)?.manifest.count, 9);
  });

  test("chunkedProgress: the embedder's progress inside a chunk moves the count between commits", async () => {
    const dir = freshDir();
    const reports: [number, number][] = [];
    const progress = chunkedProgress((d, t) => reports.push([d, t]));
    const inner = new FakeEmbedder(8);
    // Like the worker pool: a report after each text of the chunk it was handed.
    const e = {
      id: inner.id,
      dim: inner.dim,
      embed: async (batch: string[]) => {
        batch.forEach((_, i) => progress.within(i + 1));
        return inner.embed(batch);
      },
    };
    await embedWithCache(e, texts("p", 5), { dir, chunkSize: 3, onProgress: (d, t) => progress.committed(d, t) });
    assert.deepEqual(reports, [
      [0, 5],
      [1, 5],
      [2, 5],
      [3, 5],
      [3, 5],
      [4, 5],
      [5, 5],
      [5, 5],
    ]);
  });

  test("round trip: files hold exactly the rows and SHA-256 keys, in order", async () => {
    const dir = freshDir();
    const input = ["α unicode text", "", "plain", "trailing space "];
    await embedWithCache(new FakeEmbedder(16), input, { dir });
    const c = readVectorCache(dir)!;
    assert.deepEqual(c.manifest, { format: "graft-vector-cache", version: 1, embedder: "fake:16", dim: 16, count: 4 });
    assert.equal(statSync(path.join(dir, "vectors.f32")).size, 4 * 16 * 4);
    assert.equal(statSync(path.join(dir, "keys.bin")).size, 4 * 32);
    input.forEach((t, i) => {
      assert.deepEqual(c.vectors.subarray(i * 16, (i + 1) * 16), fakeVector(t, 16));
      assert.deepEqual(Buffer.from(c.keys.subarray(i * 32, (i + 1) * 32)), textKey(t));
    });
    // Keys are of the exact text: a one-character difference is a different entry.
    assert.notDeepEqual(textKey("plain"), textKey("plain "));
    assert.equal(existsSync(path.join(dir, "write.lock")), false, "lock released");
  });

  test("refuses to mix embedders (id or dim) in one cache dir", async () => {
    const dir = freshDir();
    await embedWithCache(new FakeEmbedder(8), ["x"], { dir });
    await assert.rejects(
      embedWithCache(new FakeEmbedder(8, "other-model"), ["x"], { dir }),
      /holds vectors of embedder "fake:8" \(dim 8\); refusing to mix in "other-model" \(dim 8\)/,
    );
    await assert.rejects(embedWithCache(new FakeEmbedder(16, "fake:8"), ["x"], { dir }), /refusing to mix/);
    assert.equal(readVectorCache(dir)?.manifest.count, 1);
    // Separate dirs per embedder are the intended layout.
    assert.notEqual(cacheDirFor("acl", "fake:8", root), cacheDirFor("acl", "other-model", root));
    assert.match(cacheDirFor("acl-citegraph", "minilm:/x/y", "/r"), /^\/r\/vectors\/acl-citegraph\/minilm_x_y-[0-9a-f]{8}$/);
  });

  test("an embedder failure mid-run keeps the chunks already committed", async () => {
    const dir = freshDir();
    const e = new FakeEmbedder(8);
    let calls = 0;
    const flaky = { id: e.id, dim: e.dim, embed: (t: string[]) => (++calls === 2 ? Promise.reject(new Error("boom")) : e.embed(t)) };
    await assert.rejects(embedWithCache(flaky, texts("d", 6), { dir, chunkSize: 3 }), /boom/);
    assert.equal(readVectorCache(dir)?.manifest.count, 3);
    const e2 = new FakeEmbedder(8);
    await embedWithCache(e2, texts("d", 6), { dir });
    assert.deepEqual(e2.calls, [["d item 3", "d item 4", "d item 5"]]);
  });

  test("a crash after writing data but before the commit leaves the old cache readable", async () => {
    const dir = freshDir();
    await embedWithCache(new FakeEmbedder(8), texts("e", 3), { dir });
    const before = readVectorCache(dir)!;
    await assert.rejects(
      embedWithCache(new FakeEmbedder(8), texts("f", 4), {
        dir,
        hooks: {
          beforeCommit() {
            throw new Error("simulated crash");
          },
        },
      }),
      /simulated crash/,
    );
    // The data files grew, the manifest did not: the reader sees exactly the old cache.
    assert.equal(statSync(path.join(dir, "vectors.f32")).size, 7 * 8 * 4);
    const after1 = readVectorCache(dir)!;
    assert.deepEqual(after1.manifest, before.manifest);
    assert.deepEqual(after1.vectors, before.vectors);
    // The next run cuts the uncommitted tail off and appends cleanly.
    const e = new FakeEmbedder(8);
    const v = await embedWithCache(e, [...texts("e", 3), ...texts("f", 4)], { dir });
    assert.equal(e.embeddedTexts, 4);
    assert.equal(statSync(path.join(dir, "vectors.f32")).size, 7 * 8 * 4);
    texts("f", 4).forEach((t, i) => assert.deepEqual(v[3 + i], fakeVector(t, 8)));
  });

  test("a real SIGKILL mid-append (torn files, stale lock) leaves the old cache readable", async () => {
    const dir = freshDir();
    await embedWithCache(new FakeEmbedder(8), texts("g", 2), { dir });
    const script = fileURLToPath(new URL("./fixtures/crash-append.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script, dir, ...texts("h", 5)], { stdio: "ignore" });
    const signal = await new Promise((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
    assert.equal(signal, "SIGKILL");
    assert.equal(existsSync(path.join(dir, "write.lock")), true, "the dead writer's lock is left behind");
    // Also tear the files mid-row, as a kill during write() could.
    appendFileSync(path.join(dir, "vectors.f32"), Buffer.from([1, 2, 3]));
    appendFileSync(path.join(dir, "keys.bin"), Buffer.from([9]));
    assert.equal(readVectorCache(dir)?.manifest.count, 2);
    const e = new FakeEmbedder(8);
    const v = await embedWithCache(e, [...texts("g", 2), ...texts("h", 5)], { dir });
    assert.equal(e.embeddedTexts, 5, "only the uncommitted texts are embedded again");
    [...texts("g", 2), ...texts("h", 5)].forEach((t, i) => assert.deepEqual(v[i], fakeVector(t, 8)));
    assert.equal(statSync(path.join(dir, "keys.bin")).size, 7 * 32);
  });

  test("damaged caches fail with a clear error", async () => {
    const dir = freshDir();
    await embedWithCache(new FakeEmbedder(8), texts("i", 3), { dir });
    writeFileSync(path.join(dir, "vectors.f32"), Buffer.alloc(8)); // shorter than committed
    assert.throws(() => readVectorCache(dir), /is damaged: vectors\.f32 has 8 bytes, the manifest commits 96\. Delete/);
    writeFileSync(path.join(dir, "manifest.json"), "{not json");
    assert.throws(() => readVectorCache(dir), /not valid JSON/);
    writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ format: "other" }));
    assert.throws(() => readVectorCache(dir), /is not a Graft vector cache manifest/);
  });

  test("one writer at a time: a live lock holder is reported, a dead one is taken over", async () => {
    const dir = freshDir();
    const w = VectorCacheWriter.open(dir, { id: "fake:8", dim: 8 });
    await assert.rejects(embedWithCache(new FakeEmbedder(8), ["x"], { dir }), /already open for writing in this process/);
    w.close();
    // A lock held by another live process (our parent, the test runner).
    writeFileSync(path.join(dir, "write.lock"), `${process.ppid}\n`);
    await assert.rejects(embedWithCache(new FakeEmbedder(8), ["x"], { dir }), new RegExp(`being written by process ${process.ppid}`));
    // A lock whose process has exited.
    const dead = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" }).stdout.trim();
    writeFileSync(path.join(dir, "write.lock"), `${dead}\n`);
    assert.equal((await embedWithCache(new FakeEmbedder(8), ["x"], { dir })).length, 1);
  });

  test("loads 20,000 x 512 in well under a second of CPU", async () => {
    const dir = freshDir();
    const dim = 512;
    const count = 20_000;
    const w = VectorCacheWriter.open(dir, { id: "bulk", dim });
    const rows: Float32Array[] = [];
    const keys: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const r = new Float32Array(dim);
      r[i % dim] = 1;
      rows.push(r);
      keys.push(textKey(`t${i}`));
    }
    w.append(keys, rows);
    w.close();
    assert.equal(readFileSync(path.join(dir, "vectors.f32")).length, count * dim * 4);

    // CPU time, not wall time: a machine busy with other work stretches the latter (1,029 ms at load 23).
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const d = process.cpuUsage(since);
      return (d.user + d.system) / 1000;
    };
    const t0 = process.cpuUsage();
    const c = readVectorCache(dir)!;
    const readMs = cpuMs(t0);
    const t1 = process.cpuUsage();
    const opened = VectorCacheWriter.open(dir, { id: "bulk", dim }); // read + key index
    const openMs = cpuMs(t1);
    try {
      assert.equal(c.manifest.count, count);
      assert.equal(opened.get(textKey("t12345"))![12345 % dim], 1);
    } finally {
      opened.close();
    }
    assert.ok(readMs < 1000 && openMs < 1000, `read ${readMs.toFixed(0)} ms, open with index ${openMs.toFixed(0)} ms of CPU`);
    console.log(`# 20k x 512 cache: read ${readMs.toFixed(0)} ms, open with key index ${openMs.toFixed(0)} ms of CPU`);
  });
});
