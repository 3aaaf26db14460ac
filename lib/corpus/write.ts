import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CitationRecord, PaperRecord } from "./types";

/** The paper line format of acl-citegraph (the inverse of paper-schema's parser). */
export function paperLine(p: PaperRecord): string {
  return JSON.stringify({
    id: p.externalId,
    title: p.title,
    abstract: p.abstract,
    year: p.year,
    venue: p.venue,
    authors: p.authors,
    ...(p.split ? { split: p.split } : {}),
    ...(p.fullText ? { full_text: p.fullText } : {}),
    ...(p.facets ? { facets: p.facets } : {}),
  });
}

/** Writes papers.jsonl + citations.tsv in the layout `graft import` reads. */
export function writeCorpusDir(dir: string, papers: readonly PaperRecord[], citations: readonly CitationRecord[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "papers.jsonl"), papers.map(paperLine).join("\n") + "\n");
  writeFileSync(path.join(dir, "citations.tsv"), ["citing\tcited", ...citations.map((c) => `${c.citing}\t${c.cited}`)].join("\n") + "\n");
}
