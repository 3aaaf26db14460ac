/**
 * Picks the demo's example queries and writes lib/demo/examples.json.
 *
 *   DATABASE_URL=… GRAFT_DATA_ROOT=… npx tsx lib/demo/select-examples.ts [--corpus acl-citegraph] [--count 6]
 *
 * Needs the corpus imported and a graph build. For every corpus paper it runs the related-papers
 * pipeline (k = 10, graph-RRF) and measures how much its facets disagree (lib/demo/disagreement.ts);
 * it keeps papers where at least three facets each surface a paper no other facet credits, ranks
 * them and takes a diverse few. It also picks example abstracts to paste: out-of-corpus query
 * papers (not graph nodes, like a user's own draft) with abstracts of 90-200 words.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { getDb } from "@/lib/db";
import { relatedOptions, relatedPapers } from "@/lib/query";
import { chooseExamples, disagreement, eligibleCount, titleWords, weakestSoleEvidence, type Candidate } from "./disagreement";
import type { DemoExamples } from "./examples";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function main() {
  const corpus = arg("corpus", "acl-citegraph");
  const count = Number(arg("count", "6"));
  const db = getDb();
  const papers = await db.paper.findMany({
    where: { corpus: { name: corpus }, role: "corpus" },
    select: { externalId: true, title: true, year: true },
    orderBy: { externalId: "asc" },
  });
  const options = relatedOptions.parse({ k: 10 });
  const cands: Candidate[] = [];
  let build = 0;
  const t0 = performance.now();
  for (const p of papers) {
    const r = await relatedPapers(db, { corpus, paperId: p.externalId }, options);
    build = r.build;
    const d = disagreement(r);
    const q = titleWords(p.title);
    const unexpected = Object.values(d.soleFinds).filter((s) => {
      const t = r.results.find((x) => x.externalId === s!.externalId)!.title;
      return ![...titleWords(t)].some((w) => q.has(w));
    }).length;
    cands.push({ externalId: p.externalId, title: p.title, year: p.year, d, topIds: r.results.map((x) => x.externalId), unexpected });
  }
  const chosen = chooseExamples(cands, count);
  const eligible = eligibleCount(cands);

  const queries = await db.paper.findMany({
    where: { corpus: { name: corpus }, role: "query" },
    select: { externalId: true, title: true, abstract: true, year: true },
    orderBy: [{ year: "desc" }, { externalId: "asc" }],
  });
  const abstracts = queries
    .filter((q) => {
      const words = q.abstract.split(/\s+/).length;
      return words >= 90 && words <= 200;
    })
    .slice(0, 3)
    .map((q) => ({ id: q.externalId, title: q.title, year: q.year, abstract: q.abstract }));

  const out: DemoExamples = {
    corpus,
    build,
    picked: {
      how:
        "For every corpus paper, related papers via the dense-graph teacher (k = 10, graph-RRF); a facet has a 'sole find' when a fused " +
        "top-10 paper is credited by that facet alone. Kept: papers with items in all four facets and sole finds from at least three " +
        "facets (a coherent neighbourhood) and at least one sole find sharing no title word with the query (as in the paper's CEval example). " +
        "Ranked by facets with sole finds, then the weakest sole find's evidence cosine (query item vs. paper item), then the " +
        "spread (1 − mean pairwise Jaccard of the per-facet top-10 lists); taken greedily with no shared top-10 paper and at most two per year. " +
        "Example abstracts: the newest out-of-corpus query papers with 90-200-word abstracts.",
      command: "npx tsx lib/demo/select-examples.ts",
      scanned: papers.length,
      eligible,
    },
    examples: chosen.map((c) => ({
      paperId: c.externalId,
      title: c.title,
      year: c.year,
      soleFacets: c.d.soleFacets,
      unexpectedSoleFinds: c.unexpected,
      corroborated: c.d.corroborated,
      weakestSoleEvidence: Number(weakestSoleEvidence(c.d).toFixed(3)),
      spread: Number(c.d.spread.toFixed(3)),
    })),
    abstracts,
  };
  const file = path.join(import.meta.dirname, "examples.json");
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(
    `scanned ${papers.length} papers in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${eligible} eligible; wrote ${chosen.length} examples to ${file}`,
  );
  for (const c of chosen)
    console.log(
      `  ${c.externalId}  ${c.d.soleFacets.join(",")}  unexpected=${c.unexpected}  corr=${c.d.corroborated}  weakest=${weakestSoleEvidence(c.d).toFixed(2)}  spread=${c.d.spread.toFixed(2)}  ${c.title}`,
    );
  await db.$disconnect();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
