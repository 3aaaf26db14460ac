import path from "node:path";
import { z } from "zod";
import { config } from "@/lib/config";
import { corpusName, DEFAULT_CORPUS, IMPORT_FORMATS } from "@/lib/corpus";
import { defaultCorpusPath, sharedDataDir } from "@/lib/paths";
import { dataRoot } from "@/lib/paths";
import { registerStage } from "../registry";

// The import stage as a job. importCorpus is idempotent and all-or-nothing (one transaction),
// so a re-run after a crash either finds everything written or writes it again.

/** Directories a job may import from: jobs can be queued over HTTP, so arbitrary server paths are refused. */
export function importRoots(): string[] {
  return [sharedDataDir(), dataRoot(), ...config().GRAFT_IMPORT_ROOTS].map((r) => path.resolve(r));
}

function insideRoots(p: string): boolean {
  const abs = path.resolve(p);
  return importRoots().some((root) => abs === root || abs.startsWith(root + path.sep));
}

export const importStageParams = z
  .object({
    path: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .refine((p) => !p.includes("\0"), "path contains a NUL byte")
      .refine(insideRoots, { message: "path must lie inside the shared data directory, the data root or GRAFT_IMPORT_ROOTS" })
      .optional(),
    corpus: corpusName.default(DEFAULT_CORPUS),
    description: z.string().max(2000).optional(),
    skipInvalid: z.boolean().default(false),
    /** bibtex, ris, openalex, s2, arxiv or graft; told from the path when absent. */
    format: z.enum(IMPORT_FORMATS).optional(),
  })
  .strict();
export type ImportStageParams = z.infer<typeof importStageParams>;

registerStage<ImportStageParams>(
  "import",
  async ({ db, params, progress, log }) => {
    const { readCorpus } = await import("@/lib/corpus/read");
    const { importCorpus } = await import("@/lib/corpus/import");
    const source = path.resolve(params.path ?? defaultCorpusPath());
    log(`reading ${source}`);
    const input = await readCorpus(source, { skipInvalid: params.skipInvalid, format: params.format });
    const spans = { papers: [0, 0.6], facets: [0.6, 0.85], citations: [0.85, 1] } as const;
    const summary = await importCorpus(db, input, {
      corpus: params.corpus,
      description: params.description,
      source,
      onProgress: (p) => {
        const [a, b] = spans[p.phase];
        progress(p.done, p.total, `${p.phase} ${p.done}/${p.total}`, a + (b - a) * (p.total ? p.done / p.total : 1));
      },
    });
    log(
      `imported ${summary.papers.created} new and ${summary.papers.updated} updated papers into "${summary.corpus}" (${summary.skipped.length} lines skipped` +
        `${summary.withoutAbstract ? `, ${summary.withoutAbstract} papers without abstract` : ""})`,
    );
    for (const n of summary.notices.slice(0, 50)) log(`note: ${n.line > 0 ? `${n.file}:${n.line}` : n.file}: ${n.message}`);
    return { ...summary, skipped: summary.skipped.length, notices: summary.notices.length };
  },
  {
    params: importStageParams,
    description: "import a corpus directory or papers file: Graft JSONL, BibTeX, RIS, OpenAlex, Semantic Scholar, arXiv (idempotent, all-or-nothing)",
  },
);
