/**
 * Facet-aware relevance on CSFCube's dev fold (issue 17), every Graft row through the served
 * pipeline (relatedPapers, `candidates` = the query's pool):
 *   npm run eval:csfcube [-- --corpus csfcube-dev] [--offline-corpus csfcube-dev-offline] [--dir ../shared/data/csfcube-dev] [--out reports]
 * Writes reports/csfcube-dev.json (the Evaluation page's CSFCube table) and reports/csfcube-dev.md.
 * Needs the corpus imported and its graph built (README, "CSFCube"). Dev fold only: the levers
 * of the default were chosen on these 24 queries, so the figures are development figures.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { getDb } from "@/lib/db";
import {
  aggregate,
  CSFCUBE_ATTRIBUTION,
  CSFCUBE_REFERENCES,
  pairedMapDelta,
  readCsfcubePapers,
  readCsfcubeQueries,
  runCsfcube,
  scoreRanking,
  tfidfRankings,
  type FacetSetting,
  type QueryScore,
} from "@/lib/eval/csfcube-dev";
import { repoRoot, sharedDataDir } from "@/lib/paths";
import { loadGraph, NoGraphBuildError } from "@/lib/retrieve";

const DEFAULT_RETRIEVERS = "hybrid,bm25:rrf,dense-graph:rrf";
const DEFAULT_DIR = path.join(sharedDataDir(), "csfcube-dev");

const { values } = parseArgs({
  options: {
    corpus: { type: "string", default: "csfcube-dev" },
    "offline-corpus": { type: "string" },
    // name[:fusion]; bm25 and dense-graph with RRF: their own "auto" (graph-RRF) keeps only a
    // corpus query's top-20 graph neighbours per facet, so most of a pool would go unranked.
    retrievers: { type: "string", default: DEFAULT_RETRIEVERS },
    // CSFCube's dev fold (dev-pid2anns-*.json, dev-papers…); another copy of it, not another fold.
    dir: { type: "string", default: DEFAULT_DIR },
    out: { type: "string", default: path.join(repoRoot, "reports") },
    "no-write": { type: "boolean", default: false },
  },
});

const LABELS: Record<string, string> = {
  hybrid: "Graft default (hybrid, fusion auto = RRF)",
  "bm25:rrf": "BM25 over title + facet items (--retriever bm25 --fusion rrf)",
  "dense-graph:rrf": "dense-graph teacher (--retriever dense-graph --fusion rrf)",
};

interface Row {
  method: string;
  label: string;
  facets: FacetSetting;
  facet: "background" | "method" | "result" | "all";
  queries: number;
  map: number;
  ndcg20: number;
  mapCi?: [number, number];
}

const round = (x: number) => Math.round(x * 100) / 100;
const rowsOf = (method: string, label: string, facets: FacetSetting, scores: QueryScore[]): Row[] =>
  (["background", "method", "result", "all"] as const).map((facet) => {
    const s = facet === "all" ? scores : scores.filter((x) => x.facet === facet);
    const a = aggregate(s);
    return { method, label, facets, facet, queries: a.queries, map: round(a.map), ndcg20: round(a.ndcg20), mapCi: [round(a.mapCi[0]), round(a.mapCi[1])] };
  });

const db = getDb();
if (!existsSync(path.join(values.dir, "dev-pid2anns-method.json"))) {
  // Only the dev fold is evaluated (and labelled so): its files are dev-pid2anns-<facet>.json.
  console.error(`eval:csfcube: ${values.dir} holds no CSFCube dev-fold files (dev-pid2anns-*.json); --dir takes the folder of CSFCube's dev fold`);
  process.exit(1);
}
const queries = readCsfcubeQueries(values.dir);
// Each corpus needs its graph build: said in one line naming the command, before any work.
for (const corpus of [values.corpus, values["offline-corpus"]].filter((c): c is string => c !== undefined)) {
  try {
    await loadGraph(db, corpus);
  } catch (err) {
    if (!(err instanceof NoGraphBuildError)) throw err;
    console.error(`eval:csfcube: ${err.message} (the recipe: README, "Related through one facet (CSFCube)")`);
    process.exit(1);
  }
}
const rows: Row[] = [];
const notes: string[] = [];
const deltas: string[] = [];

async function served(corpus: string, spec: string, method: string, label: string): Promise<void> {
  const [retriever, fusion] = spec.split(":");
  const by: Partial<Record<FacetSetting, QueryScore[]>> = {};
  for (const setting of ["restricted", "all"] as const) {
    const run = await runCsfcube(db, corpus, queries, setting, { retriever, ...(fusion ? { fusion } : {}) });
    by[setting] = run.scores;
    rows.push(...rowsOf(method, label, setting, run.scores));
    const a = aggregate(run.scores);
    console.error(
      `${method} ${setting}: MAP ${a.map.toFixed(2)} NDCG%20 ${a.ndcg20.toFixed(2)} (${run.unreached} pool candidates not reached; ${(run.ms / queries.length).toFixed(0)} ms/query)`,
    );
    if (run.noFacets.length > 0)
      notes.push(
        `${label}, ${setting === "restricted" ? "query's facet only" : "all facets"}: ${run.noFacets.length} queries have no item in the facet (${run.noFacets.join(", ")}); relatedPapers answers no_facets, scored as the pool's order.`,
      );
    if (run.unreached > 0)
      notes.push(
        `${label}, ${setting === "restricted" ? "query's facet only" : "all facets"}: ${run.unreached} of ${queries.reduce((n, q) => n + q.cands.length, 0)} pool candidates were not reached by the retriever and were ranked last in the pool's order.`,
      );
  }
  const d = pairedMapDelta(by.restricted as QueryScore[], by.all as QueryScore[]);
  deltas.push(`| ${label} | ${d.delta >= 0 ? "+" : ""}${d.delta.toFixed(2)} | [${d.low.toFixed(2)}, ${d.high.toFixed(2)}] |`);
}

// The item graph's embedder (the dense-graph row reads it; the default reads no item vectors).
const embedder = (await loadGraph(db, values.corpus)).embedder.replace(`${repoRoot}${path.sep}`, "");
const labelOf = (spec: string) =>
  spec.startsWith("dense-graph") ? `${LABELS[spec] ?? spec}, item graph by ${embedder.split(";")[0]}` : (LABELS[spec] ?? spec);
for (const spec of values.retrievers.split(",").filter(Boolean)) await served(values.corpus, spec, spec.replace(":", "-"), labelOf(spec));
if (values["offline-corpus"]) {
  await served(values["offline-corpus"], "hybrid", "hybrid-offline-facets", "Graft default (hybrid), facets by the offline extractor (graft extract)");
}
const tfidf = tfidfRankings(readCsfcubePapers(values.dir), queries);
rows.push(
  ...rowsOf(
    "tfidf",
    "TF-IDF, title + abstract (reference, evaluation only)",
    "all",
    queries.map((q) => scoreRanking(q, tfidf.get(q) as string[])),
  ),
);

const facetSource =
  values["offline-corpus"] !== undefined
    ? `Facets of the main rows: CSFCube's own sentence labels (background → problems, method → methods, result → results; corpus "${values.corpus}"); the offline-extractor row uses corpus "${values["offline-corpus"]}".`
    : `Facets: CSFCube's own sentence labels (background → problems, method → methods, result → results; corpus "${values.corpus}").`;
const args = [
  ...(values.corpus !== "csfcube-dev" ? ["--corpus", values.corpus] : []),
  ...(values["offline-corpus"] ? ["--offline-corpus", values["offline-corpus"]] : []),
  ...(values.retrievers !== DEFAULT_RETRIEVERS ? ["--retrievers", values.retrievers] : []),
  ...(values.dir !== DEFAULT_DIR ? ["--dir", values.dir] : []),
];
const command = `npm run eval:csfcube${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`;
const report = {
  generated: new Date().toISOString(),
  command,
  attribution: CSFCUBE_ATTRIBUTION,
  rows,
  references: CSFCUBE_REFERENCES.map((r) => ({ ...r })),
};

const f2 = (x: number) => x.toFixed(2);
const cell = (r: Row | undefined) => (r ? `${f2(r.map)} / ${f2(r.ndcg20)}` : "–");
const lines = new Map<string, Row[]>();
for (const r of rows) lines.set(`${r.label}\u0000${r.facets}`, [...(lines.get(`${r.label}\u0000${r.facets}`) ?? []), r]);
const md = [
  "# Facet-aware relevance: CSFCube, dev fold",
  "",
  `Generated ${report.generated} by \`${command}\`. Each of the 24 dev queries (8 per facet) ranks its whole pool through the served pipeline (\`relatedPapers\` with \`candidates\` = the pool, the query paper by its corpus id), either restricted to the query's facet or with all facets. ${facetSource} MAP (grade ≥ 2 relevant) / NDCG%20 (NDCG over the top 20% of each pool), 0–100, official protocol; the MAP interval is a 95% bootstrap over queries (over 8 queries per facet, 24 overall). **Development figures:** the default's settings were chosen on these same 24 queries; the other 26 CSFCube queries were never looked at.`,
  "",
  "| method | facets | background (8) | method (8) | result (8) | all 24: MAP [95% CI] / NDCG%20 |",
  "|---|---|---|---|---|---|",
  ...[...lines.values()].map((rs) => {
    const at = (f: Row["facet"]) => rs.find((r) => r.facet === f);
    const all = at("all") as Row;
    return `| ${rs[0].label} | ${rs[0].facets === "restricted" ? "query's facet only" : "all facets"} | ${cell(at("background"))} | ${cell(at("method"))} | ${cell(at("result"))} | ${f2(all.map)} [${f2((all.mapCi as [number, number])[0])}, ${f2((all.mapCi as [number, number])[1])}] / ${f2(all.ndcg20)} |`;
  }),
  "",
  "Restricted minus all facets, MAP points over the 24 queries (paired bootstrap, 95%):",
  "",
  "| method | Δ MAP | 95% CI |",
  "|---|---|---|",
  ...deltas,
  "",
  "References (official scorer): " +
    CSFCUBE_REFERENCES.map((r) => `${r.label} ${f2(r.map)} / ${f2(r.ndcg20)}`).join("; ") +
    ". Our scorer reproduces SPECTER's 35.43 / 53.02 from `specter-ranked-*.json` (lib/eval/csfcube-dev.test.ts).",
  "",
  ...(notes.length > 0 ? [...notes, ""] : []),
  CSFCUBE_ATTRIBUTION,
  "",
].join("\n");

if (!values["no-write"]) {
  mkdirSync(values.out, { recursive: true });
  writeFileSync(path.join(values.out, "csfcube-dev.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(values.out, "csfcube-dev.md"), md);
  console.error(`wrote ${path.join(values.out, "csfcube-dev.json")} and csfcube-dev.md`);
}
process.stdout.write(md);
process.exit(0);
