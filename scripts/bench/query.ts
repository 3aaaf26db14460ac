/**
 * End-to-end latency and throughput of the query pipeline (relatedPapers), warm:
 *   - 100 corpus queries (test-split papers by id; any papers where the corpus has no splits) and 100 pasted abstracts (title + abstract
 *     of the out-of-corpus query papers, so offline extraction, embedding and ephemeral insertion
 *     are included), one at a time: p50 / p95 / max per kind (targets p50 ≤ 500 ms, p95 ≤ 1 s);
 *   - another 100 + 100, mixed, from 4 concurrent clients: throughput and latency under load.
 * No abstract is sent twice (warm-up included): the pipeline remembers recently embedded items,
 * so a repeat would cost no embedding. 212 out-of-corpus papers allow n ≤ 103.
 *
 *   npx tsx scripts/bench/query.ts [--corpus acl-citegraph] [--n 100] [--clients 4] [--k 20]
 *                                  [--retriever hybrid] [--url http://127.0.0.1:3000] [--json]
 *
 * Without --url the clients call relatedPapers in this process (what the CLI does); with --url
 * they POST to a running server's /api/related (what the web app does), so HTTP, JSON and the
 * route are included. Needs a migrated store with the corpus imported and a graph build.
 */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { config } from "@/lib/config";
import { readCorpus } from "@/lib/corpus/read";
import { sharedDataDir } from "@/lib/paths";
import { disconnectDb, getDb } from "@/lib/db";
import { relatedOptions, relatedPapers, type RelatedInput, DEFAULT_RETRIEVER, type RelatedResult } from "@/lib/query";
import { mulberry32 } from "@/lib/random";

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-citegraph" },
    n: { type: "string", default: "100" },
    clients: { type: "string", default: "4" },
    k: { type: "string", default: "20" },
    retriever: { type: "string", default: DEFAULT_RETRIEVER },
    url: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const n = Number(values.n);
const clients = Number(values.clients);
const corpus = values.corpus as string;
const options = relatedOptions.parse({ k: values.k, retriever: values.retriever });
const db = getDb();

// ── the queries ──
// Test-split papers where the corpus has splits; any of its papers where it has none (a library, the 64k anthology).
const storedOf = (split?: string) =>
  db.paper.findMany({ where: { corpus: { name: corpus }, role: "corpus", ...(split ? { split } : {}) }, select: { externalId: true }, orderBy: { id: "asc" } });
let stored = await storedOf("test");
if (stored.length === 0) stored = await storedOf();
if (stored.length === 0)
  throw new Error(`corpus "${corpus}" has no papers in ${(config().DATABASE_URL ?? "the default store").replace(/\/\/[^@]*@/, "//…@")}: import it first`);
const rand = mulberry32(20261122);
const shuffled = stored
  .map((p) => p.externalId)
  .map((id) => [rand(), id] as const)
  .sort((a, b) => a[0] - b[0])
  .map(([, id]) => id);
const corpusQueries: RelatedInput[] = shuffled.slice(0, n).map((paperId) => ({ corpus, paperId }));
const corpusQueries2: RelatedInput[] = shuffled.slice(n, 2 * n).map((paperId) => ({ corpus, paperId }));
const demo = await readCorpus(path.join(sharedDataDir(), "acl-citegraph"));
const pasted = demo.queries.filter((q) => q.abstract.trim().length > 0).map((q): RelatedInput => ({ corpus, text: `${q.title}\n\n${q.abstract}` }));
// Warm-up papers are not measured again: recently embedded items are remembered (services.ts).
const WARMUP = 5;
const abstracts = pasted.slice(WARMUP, WARMUP + n);
const abstracts2 = pasted.slice(WARMUP + n, WARMUP + 2 * n);
if (abstracts2.length < n) console.warn(`only ${abstracts2.length} unseen abstracts left for the concurrent pass`);
const warmup = [...corpusQueries.slice(0, WARMUP), ...pasted.slice(0, WARMUP)];

type Kind = "corpus" | "abstract";
interface Sample {
  kind: Kind;
  ms: number;
  results: number;
  timings: RelatedResult["timings"];
}

async function runOne(kind: Kind, input: RelatedInput): Promise<Sample> {
  const t0 = performance.now();
  let r: RelatedResult;
  if (values.url) {
    const res = await fetch(new URL("/api/related", values.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...input, k: options.k, retriever: options.retriever }),
    });
    if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
    r = (await res.json()) as RelatedResult;
  } else r = await relatedPapers(db, input, options);
  return { kind, ms: performance.now() - t0, results: r.results.length, timings: r.timings };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
function summary(samples: Sample[]) {
  const ms = samples.map((s) => s.ms);
  const avg = (key: keyof RelatedResult["timings"]) => mean(samples.map((s) => s.timings[key] ?? 0));
  return {
    queries: samples.length,
    p50: pct(ms, 0.5),
    p95: pct(ms, 0.95),
    max: Math.max(...ms),
    mean: mean(ms),
    minResults: Math.min(...samples.map((s) => s.results)),
    stages: { parse: avg("parseMs"), extract: avg("extractMs"), embed: avg("embedMs"), retrieve: avg("retrieveMs"), fuse: avg("fuseMs") },
  };
}

// ── warm-up: graph load, embedder, extractor, onnxruntime sessions, JIT ──
const tw = performance.now();
for (const q of warmup) await runOne("paperId" in q ? "corpus" : "abstract", q);
const warmupMs = performance.now() - tw;

// ── one at a time ──
const sequential: Sample[] = [];
for (const q of corpusQueries) sequential.push(await runOne("corpus", q));
for (const q of abstracts) sequential.push(await runOne("abstract", q));

// ── concurrent clients over the mixed set ──
const mixed = corpusQueries2.flatMap((q, i) => [["corpus", q] as const, ...(abstracts2[i] ? [["abstract", abstracts2[i]] as const] : [])]);
let next = 0;
const concurrent: Sample[] = [];
const tc = performance.now();
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (next < mixed.length) {
      const [kind, q] = mixed[next++];
      concurrent.push(await runOne(kind, q));
    }
  }),
);
const wallS = (performance.now() - tc) / 1000;

const report = {
  mode: values.url ? `HTTP POST ${new URL("/api/related", values.url)}` : "in-process relatedPapers",
  corpus,
  retriever: options.retriever,
  k: options.k,
  cores: os.availableParallelism(),
  warmupMs,
  sequential: { corpus: summary(sequential.filter((s) => s.kind === "corpus")), abstract: summary(sequential.filter((s) => s.kind === "abstract")) },
  concurrent: { ...summary(concurrent), clients, wallSeconds: wallS, throughput: concurrent.length / wallS },
};

if (values.json) console.log(JSON.stringify(report, null, 2));
else {
  const f = (x: number) => x.toFixed(0).padStart(5);
  console.log(
    `query bench: ${report.mode}, corpus ${corpus}, retriever ${options.retriever}, k ${options.k}, ${report.cores} cores, warm-up ${warmupMs.toFixed(0)} ms`,
  );
  console.log("                      n   p50   p95   max  mean (ms)   min results   parse extract embed retrieve fuse (mean ms)");
  for (const [label, s] of [
    ["corpus papers", report.sequential.corpus],
    ["pasted abstracts", report.sequential.abstract],
    [`${clients} clients, mixed`, report.concurrent],
  ] as const) {
    const st = s.stages;
    console.log(
      `${label.padEnd(18)} ${String(s.queries).padStart(4)} ${f(s.p50)} ${f(s.p95)} ${f(s.max)} ${f(s.mean)}        ${String(s.minResults).padStart(6)}      ` +
        `${[st.parse, st.extract, st.embed, st.retrieve, st.fuse].map((x) => x.toFixed(1).padStart(6)).join(" ")}`,
    );
  }
  console.log(
    `throughput with ${clients} concurrent clients: ${report.concurrent.throughput.toFixed(1)} queries/s (${concurrent.length} queries in ${wallS.toFixed(1)} s)`,
  );
  const ok =
    report.sequential.corpus.p50 <= 500 &&
    report.sequential.abstract.p50 <= 500 &&
    report.sequential.corpus.p95 <= 1000 &&
    report.sequential.abstract.p95 <= 1000;
  console.log(`targets p50 ≤ 500 ms, p95 ≤ 1 s (one at a time): ${ok ? "met" : "NOT met"}`);
}
await disconnectDb();
