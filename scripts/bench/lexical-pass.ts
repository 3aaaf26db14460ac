/**
 * The bounded lexical all-pairs pass (lib/graph/lexical.ts) on a store's corpus, per facet, for
 * profiling and for checking a change against another version of lexical.ts (issue 18). Items
 * and the TF-IDF model are built as the graph stage builds them (idf over the papers' titles +
 * abstracts, every item term in the vocabulary, items per paper in node order).
 *
 * Per facet: rows `--rows from:to` (or a seeded `--sample n`) through `rowTopK` with the default
 * bound, timed (wall and CPU per row); `--reference <lexical.ts>` also runs those rows through
 * that file's LexicalIndex (e.g. `git show HEAD~3:lib/graph/lexical.ts` with its relative imports
 * made absolute) and fails unless every list is identical (targets and float32 scores); `--full`
 * times the whole `allPairsTopK` pass (with `--threads n`, the worker-thread pass). `--cache <file>`
 * keeps the loaded texts and model in a JSON file, so repeated runs skip the store and the fit.
 * Run under `node --cpu-prof` (via `node --import tsx`) to profile.
 *
 *   DATABASE_URL=file:/tmp/scale/graft.db npx tsx scripts/bench/lexical-pass.ts --corpus acl-anthology
 *        [--facets problems,methods] [--rows 0:2000 | --sample 500] [--k 50] [--reference /tmp/x/lexical.ts]
 *        [--full] [--threads 2] [--cache /tmp/x/lexical-texts.json]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { FACETS, type Facet } from "@/lib/corpus";
import { disconnectDb, getDb } from "@/lib/db";
import { fitLexicalModel, LexicalIndex, packLexicalItems, parseLexicalModel, serialiseLexicalModel, type LexicalModel } from "@/lib/graph/lexical";
import { lexicalAllPairsTopK } from "@/lib/graph/lexical-pool";
import { mulberry32 } from "@/lib/random";

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "acl-citegraph" },
    facets: { type: "string", default: FACETS.join(",") },
    rows: { type: "string" },
    sample: { type: "string", default: "500" },
    k: { type: "string", default: "50" },
    reference: { type: "string" },
    full: { type: "boolean", default: false },
    threads: { type: "string", default: "1" },
    cache: { type: "string" },
  },
});
const k = Number(values.k);
const facets = values.facets.split(",") as Facet[];
const threads = Number(values.threads);

interface Loaded {
  corpus: string;
  model: LexicalModel;
  perFacet: Record<Facet, string[][]>;
}

/** Texts per facet and paper (node order) and the fitted model, as lib/graph/build.ts makes them. */
async function loadFromStore(corpusName: string): Promise<Loaded> {
  const db = getDb();
  try {
    const corpus = await db.corpus.findUnique({ where: { name: corpusName } });
    if (!corpus) throw new Error(`no corpus ${corpusName}`);
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
    const texts: string[] = [];
    for (const it of items) {
      if (!(FACETS as readonly string[]).includes(it.facet)) continue;
      perFacet[it.facet as Facet][node.get(it.paperId) as number].push(it.text);
      texts.push(it.text);
    }
    const model = fitLexicalModel(
      papers.map((p) => `${p.title}\n${p.abstract}`),
      texts,
    );
    return { corpus: corpusName, model, perFacet };
  } finally {
    await disconnectDb();
  }
}

async function load(): Promise<Loaded> {
  const cache = values.cache;
  if (cache && existsSync(cache)) {
    const raw = JSON.parse(readFileSync(cache, "utf8")) as { corpus: string; model: string; perFacet: Record<Facet, string[][]> };
    if (raw.corpus === values.corpus) return { corpus: raw.corpus, model: parseLexicalModel(raw.model), perFacet: raw.perFacet };
  }
  const loaded = await loadFromStore(values.corpus);
  if (cache) writeFileSync(cache, JSON.stringify({ corpus: loaded.corpus, model: serialiseLexicalModel(loaded.model), perFacet: loaded.perFacet }));
  return loaded;
}

/** CPU seconds (user + system) of this process since `from`. */
function cpuSeconds(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
}

type RowIndex = { rowTopK(a: number, k: number): { targets: Int32Array; scores: Float32Array } };
type IndexClass = new (items: ReturnType<typeof packLexicalItems>) => RowIndex;

const t0 = performance.now();
const { model, perFacet } = await load();
console.log(`${values.corpus}: ${model.terms.length} terms, loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const Reference: IndexClass | null = values.reference ? ((await import(values.reference)) as { LexicalIndex: IndexClass }).LexicalIndex : null;

let mismatches = 0;
for (const facet of facets) {
  const items = packLexicalItems(model, perFacet[facet]);
  const index = new LexicalIndex(items);
  const n = index.numPapers;
  let rows: number[];
  if (values.rows) {
    const [from, to] = values.rows.split(":").map(Number);
    rows = Array.from({ length: Math.min(n, to) - from }, (_, i) => from + i);
  } else {
    const rand = mulberry32(11);
    const size = Math.min(n, Number(values.sample));
    rows = Array.from({ length: size }, () => Math.floor(rand() * n));
  }
  index.rowTopK(0, k); // builds the truncated postings outside the timing
  const ref = Reference ? new Reference(items) : null;
  ref?.rowTopK(0, k);
  // In batches of 50 rows, alternating with the reference, so both see the same load.
  const got: { targets: Int32Array; scores: Float32Array }[] = [];
  const want: { targets: Int32Array; scores: Float32Array }[] = [];
  const spent = { wall: 0, cpu: 0, refWall: 0, refCpu: 0 };
  for (let b0 = 0; b0 < rows.length; b0 += 50) {
    const batch = rows.slice(b0, b0 + 50);
    let w0 = performance.now();
    let c0 = process.cpuUsage();
    for (const a of batch) got.push(index.rowTopK(a, k));
    spent.wall += (performance.now() - w0) / 1000;
    spent.cpu += cpuSeconds(c0);
    if (!ref) continue;
    w0 = performance.now();
    c0 = process.cpuUsage();
    for (const a of batch) want.push(ref.rowTopK(a, k));
    spent.refWall += (performance.now() - w0) / 1000;
    spent.refCpu += cpuSeconds(c0);
  }
  const perRow = (s: number) => ((s / rows.length) * 1e6).toFixed(0);
  console.log(
    `${facet}: ${index.numItems} items, ${rows.length} rows: ${perRow(spent.wall)} µs/row wall, ${perRow(spent.cpu)} µs CPU (≈ ${((spent.cpu / rows.length) * n).toFixed(1)} CPU-s for all ${n})`,
  );
  if (ref) {
    let bad = 0;
    want.forEach((w, i) => {
      const g = got[i];
      const same = w.targets.length === g.targets.length && w.targets.every((t, j) => t === g.targets[j] && w.scores[j] === g.scores[j]);
      if (!same) {
        if (bad < 3) console.log(`  row ${rows[i]} differs: reference ${Array.from(w.targets.slice(0, 8))}… got ${Array.from(g.targets.slice(0, 8))}…`);
        bad++;
      }
    });
    mismatches += bad;
    console.log(
      `  reference: ${perRow(spent.refWall)} µs/row wall, ${perRow(spent.refCpu)} µs CPU (this code: ${(spent.cpu / spent.refCpu).toFixed(2)}x its CPU); lists identical on ${rows.length - bad} of ${rows.length} rows`,
    );
  }
  if (values.full) {
    const w0 = performance.now();
    const c0 = process.cpuUsage();
    await lexicalAllPairsTopK(index, k, { threads });
    console.log(
      `  full pass, ${threads} thread(s): ${((performance.now() - w0) / 1000).toFixed(1)} s wall, ${cpuSeconds(c0).toFixed(1)} CPU-s (the process, threads included)`,
    );
  }
}
if (mismatches > 0) {
  console.error(`${mismatches} rows differ from the reference`);
  process.exitCode = 1;
}
