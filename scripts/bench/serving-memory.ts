/**
 * Where a serving process's memory goes (issue 18, "serving RSS ≤ 2 GB"): loads a corpus's
 * served build step by step, as the first queries would, and after each step prints the
 * process's resident set (VmRSS), its peak so far (VmHWM), and V8's heap / external / array
 * buffer figures, before and after a full garbage collection (so a step's retained memory is told
 * apart from its transient garbage). A measurement, not a timed test.
 *
 *   node --expose-gc --import tsx scripts/bench/serving-memory.ts --corpus acl-anthology
 *        [--vectors] [--blocks] [--ann] [--queries 10] [--json]
 *
 * Steps: the build (loadGraph: CSR, ids, packed display fields and item texts), the BM25 index
 * and abstracts (paperText), the TF-IDF indexes (paperTfidf), with --vectors, --blocks or --ann
 * every facet's item vectors packed in memory (the default retriever reads only its candidates'
 * from the vector cache), with --blocks the exact insertion blocks, with --ann each facet's HNSW
 * index (read from the build directory when an earlier run wrote it, else built and written; the
 * exact blocks of a facet are let go once it is ready), then `--queries` pasted abstracts through
 * relatedPapers with the default retriever.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { readCorpus } from "@/lib/corpus/read";
import { FACETS } from "@/lib/corpus";
import { sharedDataDir } from "@/lib/paths";
import { disconnectDb, getDb } from "@/lib/db";
import { relatedOptions, relatedPapers } from "@/lib/query";
import { servedAnnReady } from "@/lib/retrieve/ephemeral";
import { loadGraph } from "@/lib/retrieve";
import { paperText, paperTfidf } from "@/lib/retrieve/paper-text";

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-citegraph" },
    vectors: { type: "boolean", default: false },
    blocks: { type: "boolean", default: false },
    ann: { type: "boolean", default: false },
    queries: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
});
const corpus = values.corpus as string;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn("run with node --expose-gc for the after-GC figures");

const MB = 1024 * 1024;
function procStatus(): { rss: number; hwm: number } {
  const s = readFileSync("/proc/self/status", "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

interface Row {
  step: string;
  seconds: number;
  rssMB: number;
  peakMB: number;
  rssAfterGcMB: number;
  heapUsedMB: number;
  heapTotalMB: number;
  externalMB: number;
  arrayBuffersMB: number;
}
const rows: Row[] = [];

async function step<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const out = await run();
  const seconds = (performance.now() - t0) / 1000;
  const before = procStatus();
  gc?.();
  const after = procStatus();
  const m = process.memoryUsage();
  const row: Row = {
    step: name,
    seconds,
    rssMB: before.rss / MB,
    peakMB: after.hwm / MB,
    rssAfterGcMB: after.rss / MB,
    heapUsedMB: m.heapUsed / MB,
    heapTotalMB: m.heapTotal / MB,
    externalMB: m.external / MB,
    arrayBuffersMB: m.arrayBuffers / MB,
  };
  rows.push(row);
  if (!values.json) {
    const f = (x: number) => x.toFixed(0).padStart(7);
    if (rows.length === 1) console.log(`${"step".padEnd(34)} ${"s".padStart(6)}     rss    peak  rss·gc    heap heap·tot  extern  arrbuf (MiB)`);
    console.log(
      `${name.padEnd(34)} ${seconds.toFixed(1).padStart(6)} ${f(row.rssMB)} ${f(row.peakMB)} ${f(row.rssAfterGcMB)} ${f(row.heapUsedMB)} ${f(row.heapTotalMB).padStart(8)} ${f(row.externalMB)} ${f(row.arrayBuffersMB)}`,
    );
  }
  return out;
}

const db = getDb();
await step("start (modules loaded)", () => null);
const g = await step("build: CSR, ids, papers, item texts", () => loadGraph(db, corpus));
await step("BM25 + abstracts + references", () => paperText(db, g));
await step("TF-IDF (whole + 4 facets)", () => paperTfidf(db, g));
if (values.vectors || values.blocks || values.ann) await step("item vectors (every facet's, packed)", () => FACETS.map((f) => g.vectors[f]));
if (values.blocks) await step("exact insertion blocks", () => FACETS.map((f) => g.blocks()[f]));
if (values.ann)
  for (const f of FACETS) {
    if (!g.graph.facets[f]) continue;
    await step(`HNSW index, ${f}`, async () => {
      const index = await servedAnnReady(g.blocks(), f);
      if (!values.json)
        console.log(
          `  ${f}: ${index ? `${index.stats.items} items, ${index.stats.read ? "read" : "built"} in ${index.stats.seconds.toFixed(1)} s` : "no index"}`,
        );
    });
  }
const queries = Number(values.queries);
if (queries > 0) {
  const demo = await readCorpus(path.join(sharedDataDir(), "acl-citegraph"));
  const pasted = demo.queries.filter((q) => q.abstract.trim().length > 0).slice(0, queries);
  const options = relatedOptions.parse({ k: 20 });
  const ask = (q: (typeof pasted)[number]) => relatedPapers(db, { corpus, text: `${q.title}\n\n${q.abstract}` }, options);
  // The first one also loads the query side: the facet extractor and the embedder.
  await step(`first pasted abstract (${options.retriever})`, () => ask(pasted[0]));
  await step(`${pasted.length - 1} more pasted abstracts`, async () => {
    for (const q of pasted.slice(1)) await ask(q);
  });
}
if (values.json) console.log(JSON.stringify({ corpus, build: g.build, rows }, null, 2));
await disconnectDb();
