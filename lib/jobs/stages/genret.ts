import { z } from "zod";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus";
import { registerStage } from "../registry";

// The generative-retriever stages as one job: docids → tries → training data → training →
// export (lib/genret/build.ts). Idempotent and resumable by construction: buildGenretStage
// reopens the unfinished build with the same parameters, skips sub-stages whose files exist,
// and the trainer resumes from its last checkpoint (at most 3 minutes of work lost to a kill).

export const genretStageParams = z
  .object({
    corpus: corpusName.default(DEFAULT_CORPUS),
    variant: z.enum(["uniform", "+oversample", "+floor", "+fallback", "ce-reweight", "exhaustive", "hard-neg-50", "hard-neg-100"]).default("uniform"),
    seed: z.number().int().min(0).default(0),
    trainMinutes: z.number().positive().max(100_000).default(20),
    epochs: z.number().positive().max(10_000).optional(),
    dModel: z.number().int().min(16).max(4096).optional(),
    layers: z.number().int().min(1).max(48).optional(),
    tokenPrior: z.boolean().optional(),
    device: z.enum(["cpu", "cuda"]).optional(),
    condition: z.enum(["vector", "tokens"]).optional(),
  })
  .strict();
export type GenretStageParams = z.infer<typeof genretStageParams>;

const SPANS = { docids: [0, 0.02], examples: [0.02, 0.05], train: [0.05, 0.99], export: [0.99, 1] } as const;

registerStage<GenretStageParams>(
  "genret",
  async ({ db, params, progress, log }) => {
    const { buildGenretStage } = await import("@/lib/genret/build");
    const report = await buildGenretStage(db, {
      corpus: params.corpus,
      variant: params.variant,
      seed: params.seed,
      trainer: {
        timeBudget: params.trainMinutes * 60,
        epochs: params.epochs,
        dModel: params.dModel,
        layers: params.layers,
        tokenPrior: params.tokenPrior,
        device: params.device,
        condition: params.condition === "tokens" ? "tokens" : undefined,
      },
      onProgress: (phase, done, total, detail) => {
        const [a, b] = SPANS[phase];
        progress(done, total, `${phase}${detail ? ` ${detail}` : ""}`, a + (b - a) * (total ? done / total : 1));
      },
      onLog: (line) => log(line),
    });
    log(`build ${report.build} complete (${report.variant}, ${report.examples} examples${report.resumed ? ", resumed" : ""}); served from now on`);
    return report;
  },
  {
    params: genretStageParams,
    description: "train the generative retriever: DocIDs, tries, coverage-aware training data, PyTorch training, ONNX export",
  },
);
