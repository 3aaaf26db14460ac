/**
 * The generative retriever shipped for the demo corpus (models/genret-acl-citegraph):
 * a model trained by `graft build --stage genret` with the parameters in its genret.json, so
 * the app can answer with the "graft" retriever right after set-up instead of after hours of
 * CPU training. Installing it makes a regular versioned build from its files, after checking
 * that it fits the corpus (same papers, same facet items). The tries are not shipped (they would
 * push the model past the repository's 25 MB budget): they are rebuilt from the store's facet
 * items, and the rebuilt vocabulary must equal the model's. The graph build may use another
 * embedder than the model's: nothing here reads item vectors, and the "graft" retriever embeds
 * a query's items with the embedder the model's genret.json names (lib/retrieve/graft.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { completeBuild, startBuild, writeArtefact } from "@/lib/builds";
import type { Db } from "@/lib/db";
import { repoRoot } from "@/lib/paths";
import { FACETS } from "@/lib/corpus";
import { readStoreCorpus } from "./build";
import { MODEL_FILES, missingModelFiles, OPTIONAL_DECODER_FILES } from "./model";
import { buildIdentifiers, identifierFiles } from "./prepare";
import { readVocabFile } from "./vocab";

const TRIE_FILES = new Set(FACETS.map((f) => `trie-${f}.bin`));

/** Weights live under models/ at the repository root, beside the other shipped models, not in the code tree. */
export const PRETRAINED_DIR = path.join(repoRoot, "models", "genret-acl-citegraph");

export interface InstallReport {
  build: number;
  dir: string;
  source: string;
  variant: string;
}

export async function installPretrainedModel(db: Db, corpus: string, source: string = PRETRAINED_DIR): Promise<InstallReport> {
  const missing = missingModelFiles(source).filter((f) => !TRIE_FILES.has(f));
  if (missing.length > 0) throw new Error(`${source} holds no complete model (missing ${missing.join(", ")})`);
  const graph = await db.build.findFirst({
    where: { corpus: { name: corpus }, status: "complete", artefacts: { some: { name: "graph.csr" } } },
    orderBy: { id: "desc" },
  });
  if (!graph) throw new Error(`corpus "${corpus}" has no graph build: run \`graft build --stage graph --corpus ${corpus}\` first`);
  const meta = JSON.parse(readFileSync(path.join(source, "genret.json"), "utf8")) as { embedder: string; variant: string };
  const modelIds = (JSON.parse(readFileSync(path.join(source, "papers.json"), "utf8")) as { externalIds: string[] }).externalIds;
  const store = await readStoreCorpus(db, corpus);
  if (store.externalIds.length !== modelIds.length || store.externalIds.some((id, i) => id !== modelIds[i])) {
    throw new Error(
      `the shipped model was trained on other papers than corpus "${corpus}" holds (${modelIds.length} vs ${store.externalIds.length} papers): train one with \`graft build --stage genret\``,
    );
  }
  const ids = buildIdentifiers({ ids: store.externalIds, facets: store.facets });
  const shippedVocab = readVocabFile(path.join(source, "vocab.json")).vocab;
  if (shippedVocab.size !== ids.vocab.size || shippedVocab.llamaIds.some((t, i) => t !== ids.vocab.llamaIds[i])) {
    throw new Error(
      `the facet items of "${corpus}" differ from those the shipped model was trained on (its DocID vocabulary does not match): train one with \`graft build --stage genret\``,
    );
  }
  const build = await startBuild(db, corpus, {
    stage: "genret",
    source: path.relative(repoRoot, source),
    graphBuild: graph.id,
    variant: meta.variant,
    pretrained: true,
  });
  for (const f of identifierFiles(ids)) writeArtefact(build, "docids", f.name, f.name, f.data);
  for (const f of [...MODEL_FILES, "train.json", ...OPTIONAL_DECODER_FILES]) {
    if (!existsSync(path.join(source, f)) || TRIE_FILES.has(f) || f === "vocab.json") continue;
    writeArtefact(build, "train", f, f, readFileSync(path.join(source, f)));
  }
  const training = existsSync(path.join(source, "train.json")) ? JSON.parse(readFileSync(path.join(source, "train.json"), "utf8")) : {};
  await completeBuild(db, build, { stage: "genret", pretrained: true, source: path.relative(repoRoot, source), embedder: { id: meta.embedder }, training });
  return { build: build.id, dir: build.dir, source, variant: meta.variant };
}
