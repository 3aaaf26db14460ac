/**
 * Speed of the offline facet extractor: papers/s over the first N abstracts of the ACL
 * Anthology dump (target >= 20 papers/s, the rate an import of a large corpus needs).
 *
 *   npx tsx scripts/bench/extract.ts [--n 1000] [--file <papers.jsonl.gz>]
 *
 * Runs the FacetExtractor interface end to end (async extract, one paper at a time), after a
 * short warm-up so JIT compilation is not counted; model loading is timed separately.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { readCorpus } from "@/lib/corpus/read";
import { sharedDataDir } from "@/lib/paths";
import { OfflineFacetExtractor } from "@/lib/facets/offline/extractor";
import { loadModel } from "@/lib/facets/offline/model";

const { values } = parseArgs({ options: { n: { type: "string" }, file: { type: "string" } } });
const n = Number(values.n ?? 1000);
const file = values.file ?? path.join(sharedDataDir(), "acl-anthology-abstracts.jsonl.gz");

const corpus = await readCorpus(file, { skipInvalid: true });
const papers = corpus.papers.filter((p) => p.abstract.trim()).slice(0, n);
if (papers.length < n) console.warn(`only ${papers.length} papers with an abstract in ${file}`);

const tl = performance.now();
const model = loadModel();
const loadMs = performance.now() - tl;
const extractor = new OfflineFacetExtractor(model);
for (const p of papers.slice(0, 20)) await extractor.extract({ title: p.title, abstract: p.abstract });

let failed = 0;
let items = 0;
const t0 = performance.now();
for (const p of papers) {
  const r = await extractor.extract({ title: p.title, abstract: p.abstract });
  if (!r.ok) failed++;
  else for (const list of Object.values(r.facets)) items += list.length;
}
const s = (performance.now() - t0) / 1000;
console.log(
  `offline extractor: ${papers.length} papers in ${s.toFixed(2)} s = ${(papers.length / s).toFixed(0)} papers/s ` +
    `(${((1000 * s) / papers.length).toFixed(2)} ms/paper; ${(items / Math.max(1, papers.length - failed)).toFixed(1)} items/paper; ` +
    `${failed} failed; model load ${loadMs.toFixed(0)} ms)`,
);
