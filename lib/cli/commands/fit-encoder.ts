import { createReadStream, existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import type { Command } from "commander";
import { z } from "zod";
import { fitLsa, saveLsaModel } from "@/lib/embed/lsa";
import { emit, fmt, parseOptions, UsageError } from "../output";
import { ProgressBar } from "../progress";

const fitOptions = z.object({
  input: z.string().min(1, "the JSONL file to fit on is required"),
  out: z.string().min(1, "the model folder to write is required"),
  dims: z.coerce.number().int().min(1).max(4096).default(256),
  seed: z.coerce.number().int().default(0),
  minDf: z.coerce.number().int().min(1).default(2),
  maxVocab: z.coerce.number().int().min(1).default(50_000),
  powerIterations: z.coerce.number().int().min(0).max(10).default(2),
  json: z.boolean().default(false),
});

/** Title and abstract of each JSONL line (a corpus file as `graft import` reads it, gzipped or not). */
async function readFittingTexts(file: string, onLine: (n: number) => void): Promise<{ texts: string[]; skipped: number }> {
  const raw = createReadStream(file);
  const input = file.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const texts: string[] = [];
  let skipped = 0;
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    n++;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const r = (row ?? {}) as { title?: unknown; abstract?: unknown };
    const parts = [r.title, r.abstract].filter((p): p is string => typeof p === "string" && p.trim() !== "");
    if (parts.length === 0) skipped++;
    else texts.push(parts.join(". "));
    if (n % 5000 === 0) onLine(n);
  }
  return { texts, skipped };
}

export function registerFitEncoder(program: Command): void {
  program
    .command("fit-encoder")
    .description("fit the LSA item encoder (TF-IDF + truncated SVD) on a JSONL corpus's titles and abstracts; use it with GRAFT_EMBEDDER=lsa:<folder>")
    .requiredOption("--input <file>", "JSONL or JSONL.gz with title and abstract per line (the import format)")
    .requiredOption("--out <folder>", "model folder to write (model.json + projection.f32)")
    .option("--dims <n>", "latent dimensions (default 256)")
    .option("--seed <n>", "seed of the randomized SVD (default 0)")
    .option("--min-df <n>", "keep terms in at least n documents (default 2)")
    .option("--max-vocab <n>", "keep at most n terms, the most frequent (default 50,000)")
    .option("--power-iterations <n>", "power iterations of the randomized SVD (default 2)")
    .option("--json", "machine-readable output")
    .action(async (raw: unknown) => {
      const opts = parseOptions(fitOptions, raw);
      if (!existsSync(opts.input)) throw new UsageError(`--input: no such file ${opts.input}`);
      const t0 = performance.now();
      const bar = new ProgressBar("fit-encoder");
      let summary;
      try {
        bar.update(0, 0, "reading");
        const { texts, skipped } = await readFittingTexts(opts.input, (n) => bar.update(n, 0, "reading"));
        const readSeconds = (performance.now() - t0) / 1000;
        const model = fitLsa(texts, {
          dims: opts.dims,
          seed: opts.seed,
          minDf: opts.minDf,
          maxVocab: opts.maxVocab,
          powerIterations: opts.powerIterations,
          onProgress: (phase, done, total) => bar.update(done, total, phase),
        });
        const fingerprint = saveLsaModel(opts.out, model);
        const folder = path.resolve(opts.out);
        summary = {
          folder,
          spec: `lsa:${folder}`,
          fingerprint,
          documents: texts.length,
          skipped,
          vocabulary: model.vocabulary.length,
          dims: model.dims,
          projectionBytes: model.projection.byteLength,
          readSeconds: Number(readSeconds.toFixed(1)),
          seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
        };
      } finally {
        bar.done();
      }
      emit(
        opts,
        summary,
        () =>
          `fitted ${summary.dims}-d LSA on ${fmt(summary.documents)} documents (${fmt(summary.skipped)} skipped), ${fmt(summary.vocabulary)} terms, ` +
          `in ${summary.seconds} s → ${summary.folder} (fingerprint ${summary.fingerprint}, projection ${(summary.projectionBytes / 2 ** 20).toFixed(1)} MiB)\n` +
          `use it: GRAFT_EMBEDDER=${summary.spec} (or --embedder ${summary.spec})`,
      );
    });
}
