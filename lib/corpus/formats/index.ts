/**
 * The import formats besides Graft's own JSONL layout (read.ts): each reader turns its input
 * into located paper records and citation pairs for a CorpusCollector, which validates them
 * with the one paper schema and returns the CorpusInput that importCorpus writes (idempotent,
 * all-or-nothing).
 */
import { basename, resolve } from "node:path";
import type { CorpusFiles, CorpusInput, ReadCorpusOptions } from "../read";
import { readArxiv } from "./arxiv";
import { readBibtex } from "./bibtex";
import { CorpusCollector } from "./collect";
import type { ImportFormat } from "./detect";
import { readOpenAlex } from "./openalex";
import { readRis } from "./ris";
import { readS2 } from "./s2";

// The readers other folders use directly (a library upload reads BibTeX and RIS); this module is
// lib/corpus's separate entry "@/lib/corpus/formats" (lint/layers.mjs SEPARATE_ENTRIES).
export { readBibtex } from "./bibtex";
export { CorpusCollector, type Location, type RawPaper } from "./collect";
export { readRis } from "./ris";
export { readTextFile } from "./text";

type Reader = (path: string, c: CorpusCollector) => Promise<CorpusFiles>;

const READERS: Record<Exclude<ImportFormat, "graft">, Reader> = {
  bibtex: readBibtex,
  ris: readRis,
  openalex: readOpenAlex,
  s2: readS2,
  arxiv: readArxiv,
};

export async function readFormat(format: Exclude<ImportFormat, "graft">, path: string, options: ReadCorpusOptions = {}): Promise<CorpusInput> {
  const collector = new CorpusCollector({ maxIssues: options.maxIssues, skipInvalid: options.skipInvalid });
  return CorpusCollector.run(collector, async () => {
    const files = await READERS[format](path, collector);
    return collector.finish(files, format, { file: basename(files.papers || resolve(path)), line: 0 });
  });
}
