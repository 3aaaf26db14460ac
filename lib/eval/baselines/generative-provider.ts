/**
 * The generative rows of the evaluation harness (`graft eval --generative lib/eval/baselines/generative-provider.ts`):
 * decodes the harness's queries with one trained model per variant, found as complete model
 * directories under <dataRoot>/<corpus>/genret-models/<variant>/ (or GRAFT_GENRET_MODELS/<variant>/, lib/config.ts),
 * e.g. the builds of `graft build --stage genret --variant <v>` copied or linked there. The
 * harness does all fusion itself; this only produces the per-facet candidate lists, or for
 * "minder" the per-view lists (a MINDER model directory: lib/eval/baselines/minder.ts, written by
 * scripts/train/minder-pack.ts plus the trainer's decoder).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { config } from "@/lib/config";
import { repoRoot } from "@/lib/paths";
import type { GenerativeProvider, GenerativeProviderContext, GenerativeResult, GenerativeVariant } from "@/lib/eval/generative";
import type { Candidate, FacetLists } from "@/lib/fusion";
import { loadMinderModel, minderViewLists, missingMinderModelFiles, type MinderModel } from "./minder";
import { generativeFacetLists, loadGenretModel, missingModelFiles, type GenretModel } from "@/lib/genret";

/** MINDER's model directory holds view tries instead of facet tries. */
const isMinder = (variant: GenerativeVariant): boolean => variant === "minder";

export async function createGenerativeProvider(context: GenerativeProviderContext): Promise<GenerativeProvider> {
  const { GRAFT_GENRET_MODELS, GRAFT_BEAMS: beams } = config();
  const root =
    GRAFT_GENRET_MODELS !== undefined
      ? path.resolve(repoRoot, GRAFT_GENRET_MODELS)
      : path.join(context.dataRoot, path.basename(path.resolve(context.corpusDir)), "genret-models");
  const dirOf = (variant: string): string => path.join(root, variant);
  const loaded = new Map<string, Promise<GenretModel | MinderModel>>();

  return {
    unavailable(variant: GenerativeVariant): string | null {
      const dir = dirOf(variant);
      if (!existsSync(dir)) return `no trained model for "${variant}" under ${root}`;
      const missing = isMinder(variant) ? missingMinderModelFiles(dir) : missingModelFiles(dir);
      return missing.length > 0 ? `${dir} is incomplete (missing ${missing.join(", ")})` : null;
    },
    describe(variant: GenerativeVariant): Record<string, unknown> {
      const file = path.join(dirOf(variant), "train.json");
      const t = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
      return { dir: dirOf(variant), params: t.params, seen: t.seen, epochs: t.epochs, trainSeconds: t.trainSeconds, config: t.config, beams };
    },
    async run(variant, queries, options): Promise<GenerativeResult[]> {
      let p = loaded.get(variant);
      if (!p) {
        p = isMinder(variant) ? loadMinderModel(dirOf(variant), { threads: 2 }) : loadGenretModel(dirOf(variant), { threads: 2 });
        loaded.set(variant, p);
      }
      const model = await p;
      // A `tokens` model reads the items' words (q.facets), not the harness's vectors.
      const readsWords = !("tries" in model) && model.config.condition === "tokens";
      if (!readsWords && model.manifest.embedder !== options.embedder) {
        throw new Error(`the "${variant}" model was trained on ${model.manifest.embedder} vectors, the harness embeds with ${options.embedder}`);
      }
      // Model node index -> harness corpus index (identical when both come from the same corpus file).
      const index = new Map(options.corpusIds.map((id, i) => [id, i]));
      const toCorpus = Int32Array.from(model.paperIds, (id) => index.get(id) ?? -1);
      const fromCorpus = new Map(model.paperIds.map((id, i) => [index.get(id), i]));
      const mapList = (list: readonly Candidate[]): Candidate[] => list.flatMap((c) => (toCorpus[c.paper] >= 0 ? [{ ...c, paper: toCorpus[c.paper] }] : []));
      const out: GenerativeResult[] = [];
      for (const [n, q] of queries.entries()) {
        const exclude = q.corpusIndex === null ? undefined : fromCorpus.get(q.corpusIndex);
        if ("tries" in model) {
          // MINDER: every item of every facet, untyped, once per view.
          const views = await minderViewLists(model, { items: q.items, exclude }, { beams });
          out.push({ views: Object.fromEntries(Object.entries(views).map(([view, list]) => [view, mapList(list)])) });
        } else {
          const lists = await generativeFacetLists(model, { items: q.items, texts: q.facets, exclude }, { beams });
          const mapped: FacetLists = {};
          for (const [facet, list] of Object.entries(lists) as [keyof FacetLists, Candidate[]][]) mapped[facet] = mapList(list);
          out.push({ lists: mapped });
        }
        options.onProgress?.(n + 1, queries.length);
      }
      context.log(`generative ${variant}: decoded ${queries.length} queries`);
      return out;
    },
  };
}
