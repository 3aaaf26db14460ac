/**
 * Development runs of issue 17's query sets through the served pipeline:
 *   npm run eval:user-papers -- --set unseen-tune|later-tune|… --source llm --retriever hybrid [--fusion rrf] [--limit 100]
 *     [--later W] [--no-rerank] [--gen W] [--whole W] (a hybrid variant registered under --retriever's name)
 * Prints micro R@5/10/20/50 with the R@20 bootstrap CI and the mean latency.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { getDb } from "@/lib/db";
import { sharedDataDir } from "@/lib/paths";
import { createExtractor } from "@/lib/facets/provider";
import { runUserPapers, userPaperQueries, userPaperRecall, type FacetSource, type UserPaperSet } from "@/lib/eval/user-papers";
import type { RelatedOptions } from "@/lib/query";
import { HYBRID, hybridRetriever, registerRetriever } from "@/lib/retrieve";

const { values } = parseArgs({
  options: {
    set: { type: "string", default: "unseen-tune" },
    source: { type: "string", default: "llm" },
    retriever: { type: "string", default: "hybrid" },
    fusion: { type: "string" },
    facets: { type: "string" },
    limit: { type: "string" },
    corpus: { type: "string", default: "acl-citegraph" },
    gen: { type: "string" },
    whole: { type: "string" },
    walked: { type: "boolean" },
    later: { type: "string" },
    "no-rerank": { type: "boolean" },
    dir: { type: "string", default: path.join(sharedDataDir(), "acl-citegraph") },
  },
});
if (values.gen !== undefined || values.whole !== undefined || values.walked || values.later !== undefined || values["no-rerank"]) {
  const settings = {
    ...HYBRID,
    laterWeight: Number(values.later ?? HYBRID.laterWeight ?? 0),
    ...(values["no-rerank"] ? { rerank: null } : {}),
    generativeWeight: Number(values.gen ?? HYBRID.generativeWeight),
    wholePaperWeight: Number(values.whole ?? HYBRID.wholePaperWeight),
    generativeWalk: values.walked === true,
  };
  registerRetriever(hybridRetriever(settings, values.retriever));
}
const queries = userPaperQueries(values.dir, values.set as UserPaperSet).slice(0, values.limit ? Number(values.limit) : undefined);
const options = {
  retriever: values.retriever,
  ...(values.fusion ? { fusion: values.fusion } : {}),
  ...(values.facets ? { facets: values.facets } : {}),
} as Partial<RelatedOptions>;
const source = values.source as FacetSource;
const extractor = source === "offline" ? createExtractor("offline").extractor : undefined;
const runs = await runUserPapers(getDb(), values.corpus, queries, options, source, extractor);
const r = userPaperRecall(runs);
const ms = runs.map((x) => x.ms).sort((a, b) => a - b);
console.log(
  `${values.set} ${source} ${values.retriever}${values.fusion ? `/${values.fusion}` : ""}: n=${r.queries} gold=${r.goldPairs}`,
  Object.entries(r.recall)
    .map(([k, v]) => `R@${k} ${v.toFixed(3)}`)
    .join("  "),
  `CI20 [${r.ci20.low.toFixed(3)}, ${r.ci20.high.toFixed(3)}]`,
  `mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(0)} ms p95 ${ms[Math.floor(ms.length * 0.95)]?.toFixed(0)} ms`,
);
process.exit(0);
