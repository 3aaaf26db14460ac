/**
 * Recall of the bounded lexical all-pairs pass (lib/graph/lexical.ts, `maxPostings` + per-row candidate
 * budget, every candidate rescored exactly) against the exact one, on a store's corpus (issue 18).
 * The model and the per-facet inverted files are built as the graph stage builds them (idf over
 * the papers' titles + abstracts, every item term in the vocabulary). Per facet: the exact top-k
 * of a seeded sample of rows (all rows with --sample 0), then each bound's rows on the same
 * sample; recall@r = share of the exact top-r whose papers the bounded top-r holds, a paper
 * tied with the exact r-th score counting as found. With --full, the whole bounded pass is also
 * timed with the default bound.
 *
 *   npx tsx scripts/bench/lexical-recall.ts --corpus acl-anthology [--sample 1000] [--k 50]
 *        [--max-postings 250,500,1000] [--candidates 100,200,400] [--full] [--facets problems,methods]
 */
import { parseArgs } from "node:util";
import { FACETS, type Facet } from "@/lib/corpus";
import { disconnectDb, getDb } from "@/lib/db";
import { DEFAULT_LEXICAL_BOUND, fitLexicalModel, LexicalIndex, packLexicalItems } from "@/lib/graph/lexical";
import { mulberry32 } from "@/lib/random";

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-citegraph" },
    sample: { type: "string", default: "1000" },
    k: { type: "string", default: "50" },
    "max-postings": { type: "string", default: "250,500,1000" },
    candidates: { type: "string", default: "100,200,400" },
    facets: { type: "string", default: FACETS.join(",") },
    full: { type: "boolean", default: false },
    "skip-exact": { type: "boolean", default: false },
  },
});
const k = Number(values.k);
const sampleSize = Number(values.sample);
const caps = values["max-postings"].split(",").map(Number);
const budgets = values.candidates.split(",").map(Number);
const facets = values.facets.split(",") as Facet[];

const db = getDb();
const corpus = await db.corpus.findUnique({ where: { name: values.corpus } });
if (!corpus) throw new Error(`no corpus ${values.corpus}`);
const papers = await db.paper.findMany({
  where: { corpusId: corpus.id, role: "corpus" },
  select: { id: true, title: true, abstract: true },
  orderBy: { id: "asc" },
});
const node = new Map(papers.map((p, i) => [p.id, i]));
const items = await db.facetItem.findMany({
  where: { paper: { corpusId: corpus.id, role: "corpus" } },
  select: { paperId: true, facet: true, text: true },
  orderBy: [{ paperId: "asc" }, { position: "asc" }],
});
const perFacet = Object.fromEntries(FACETS.map((f) => [f, papers.map(() => [] as string[])])) as Record<Facet, string[][]>;
for (const it of items) if ((FACETS as readonly string[]).includes(it.facet)) perFacet[it.facet as Facet][node.get(it.paperId) as number].push(it.text);
const model = fitLexicalModel(
  papers.map((p) => `${p.title}\n${p.abstract}`),
  items.map((i) => i.text),
);
console.log(`${values.corpus}: ${papers.length} papers, ${items.length} items, ${model.terms.length} terms`);

/** CPU time (user + system) of this process since `from`, in ms. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** recall@r of `got` against `want` (exact rows), ties with the exact r-th score counting as found. */
function recallAt(r: number, want: { targets: Int32Array; scores: Float32Array }, got: { targets: Int32Array }): { hit: number; of: number } {
  const of = Math.min(r, want.targets.length);
  if (of === 0) return { hit: 0, of: 0 };
  const cut = want.scores[of - 1];
  const exact = new Map<number, number>();
  want.targets.forEach((t, i) => exact.set(t, want.scores[i]));
  let hit = 0;
  for (let i = 0; i < Math.min(r, got.targets.length); i++) {
    const s = exact.get(got.targets[i]);
    if (s !== undefined && s >= cut - 1e-6) hit++;
  }
  return { hit: Math.min(hit, of), of };
}

for (const facet of facets) {
  const index = new LexicalIndex(packLexicalItems(model, perFacet[facet]));
  const n = index.numPapers;
  const rand = mulberry32(11);
  const rows = sampleSize > 0 && sampleSize < n ? Array.from({ length: sampleSize }, () => Math.floor(rand() * n)) : Array.from({ length: n }, (_, i) => i);
  let t0 = performance.now();
  let c0 = process.cpuUsage();
  const exact = values["skip-exact"]
    ? rows.map(() => ({ targets: new Int32Array(0), scores: new Float32Array(0) }))
    : rows.map((a) => index.rowTopK(a, k, { maxPostings: Infinity }));
  const exactMs = performance.now() - t0;
  const exactCpu = cpuMs(c0);
  console.log(
    `${facet}: ${index.numItems} items, ${rows.length} rows; exact ${((exactMs / rows.length) * 1000).toFixed(0)} µs/row wall, ${((exactCpu / rows.length) * 1000).toFixed(0)} µs CPU (≈ ${(((exactCpu / rows.length) * n) / 1000).toFixed(1)} CPU-s for all ${n})`,
  );
  const postingsPerRow = (cap: number): number => {
    const { offsets, itemPtr, terms } = index.items;
    let sum = 0;
    for (const a of rows) for (let e = itemPtr[offsets[a]]; e < itemPtr[offsets[a + 1]]; e++) sum += Math.min(cap, index.df(terms[e]));
    return sum / rows.length;
  };
  console.log(
    `  postings read per row: exact ${postingsPerRow(Infinity).toFixed(0)}; ${caps.map((c) => `cap ${c}: ${postingsPerRow(c).toFixed(0)}`).join(", ")}`,
  );
  for (const maxDf of caps) {
    for (const c of budgets) {
      index.rowTopK(0, k, { maxPostings: maxDf, candidates: c }); // builds the truncated postings outside the timing
      t0 = performance.now();
      c0 = process.cpuUsage();
      const got = rows.map((a) => index.rowTopK(a, k, { maxPostings: maxDf, candidates: c }));
      const ms = performance.now() - t0;
      const cpu = cpuMs(c0);
      const acc = { 10: { hit: 0, of: 0 }, 20: { hit: 0, of: 0 }, 50: { hit: 0, of: 0 } } as Record<number, { hit: number; of: number }>;
      let worst20 = 1;
      got.forEach((g, i) => {
        for (const r of [10, 20, 50]) {
          const x = recallAt(r, exact[i], g);
          acc[r].hit += x.hit;
          acc[r].of += x.of;
          if (r === 20 && x.of > 0) worst20 = Math.min(worst20, x.hit / x.of);
        }
      });
      const rec = (r: number) => (acc[r].of ? acc[r].hit / acc[r].of : 1).toFixed(4);
      console.log(
        `  maxPostings ${maxDf} candidates ${c}: recall@10 ${rec(10)} @20 ${rec(20)} (worst row ${worst20.toFixed(2)}) @50 ${rec(50)}; ${((ms / rows.length) * 1000).toFixed(0)} µs/row wall, ${((cpu / rows.length) * 1000).toFixed(0)} µs CPU (≈ ${(((cpu / rows.length) * n) / 1000).toFixed(1)} CPU-s for all)`,
      );
    }
  }
  if (values.full) {
    t0 = performance.now();
    c0 = process.cpuUsage();
    index.allPairsTopK(k);
    console.log(
      `  full pass, default bound ${JSON.stringify(DEFAULT_LEXICAL_BOUND)}: ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${(cpuMs(c0) / 1000).toFixed(1)} CPU-s`,
    );
  }
}
await disconnectDb();
