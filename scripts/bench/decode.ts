/**
 * `npm run bench:decode`: latency of the generative retriever's constrained beam search, all
 * items of one paper per call (batched, KV cache), over test papers of the demo corpus.
 *
 *   npx tsx scripts/bench/decode.ts [--model DIR] [--queries 50] [--beams $GRAFT_BEAMS] [--threads 2]
 *
 * Default model: the newest complete genret build under $GRAFT_DATA_ROOT/acl-citegraph (e.g. the
 * shipped demo model installed by scripts/demo.sh or `graft build --stage genret --pretrained`).
 */
import { existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { config } from "@/lib/config";
import { sharedDataDir } from "@/lib/paths";
import { FACETS, type Facet } from "@/lib/corpus";
import { dataRoot } from "@/lib/paths";
import { loadCorpusData } from "@/lib/graph/corpus-data";
import { paperItems } from "@/lib/eval/dense-graph";
import { generativeFacetLists, loadGenretModel, missingModelFiles } from "@/lib/genret";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    queries: { type: "string", default: "50" },
    beams: { type: "string", default: String(config().GRAFT_BEAMS) },
    threads: { type: "string", default: "2" },
  },
});

function newestModel(): string {
  const dir = path.join(dataRoot(), "acl-citegraph");
  const builds = existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => /^build-\d+$/.test(d) && existsSync(path.join(dir, d, "manifest.json")) && missingModelFiles(path.join(dir, d)).length === 0)
        .sort((a, b) => Number(b.slice(6)) - Number(a.slice(6)))
    : [];
  if (builds.length > 0) return path.join(dir, builds[0]);
  throw new Error("no generative-retriever model: run `npm run graft -- build --stage genret [--pretrained]` first");
}

const modelDir = values.model ?? newestModel();
const data = await loadCorpusData(path.join(sharedDataDir(), "acl-citegraph"));
const model = await loadGenretModel(modelDir, { threads: Number(values.threads) });
const queries = data.splits.flatMap((s, i) => (s === "test" ? [i] : [])).slice(0, Number(values.queries));
const beams = Number(values.beams);

const run = async (q: number) =>
  generativeFacetLists(model, { items: paperItems(data.items, q) as Partial<Record<Facet, Float32Array[]>>, exclude: q }, { beams });
await run(queries[0]); // warm-up: session initialisation, first allocations
const ms: number[] = [];
let items = 0;
for (const q of queries) {
  items += FACETS.reduce((s, f) => s + (data.items[f].offsets[q + 1] - data.items[f].offsets[q]), 0);
  const t0 = performance.now();
  await run(q);
  ms.push(performance.now() - t0);
}
await model.decoder.close();
ms.sort((a, b) => a - b);
const pct = (p: number): number => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))];
console.log(`model ${modelDir} · ${model.config.d}-d × ${model.config.layers} layers · vocabulary ${model.config.vocab}`);
console.log(
  `${queries.length} test papers (${(items / queries.length).toFixed(1)} items each, all facets), ${beams} beams, onnxruntime ${values.threads} thread(s), ${os.availableParallelism()} cores`,
);
console.log(
  `decode latency per paper: p50 ${pct(50).toFixed(0)} ms · p95 ${pct(95).toFixed(0)} ms · mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(0)} ms · max ${ms[ms.length - 1].toFixed(0)} ms`,
);
