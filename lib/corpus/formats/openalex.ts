/**
 * OpenAlex works (the snapshot's JSON Lines part files, or an API export written one work a
 * line): the abstract rebuilt from `abstract_inverted_index`, `referenced_works` as citations
 * (those between imported works become corpus citations), ids in OpenAlex's short form (W123).
 */
import type { CorpusFiles } from "../read";
import { showValue } from "../paper-schema";
import type { CorpusCollector, Location } from "./collect";
import { at, fileLabel, forEachJsonLine, partFiles, text } from "./jsonl";
import { stripMarkup, yearOf } from "./text";

/** "https://openalex.org/W2741809807" or "W2741809807" → "W2741809807"; null for anything else. */
export function openAlexWorkId(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const m = /^(?:https?:\/\/(?:api\.)?openalex\.org\/(?:works\/)?)?(W\d+)$/i.exec(v.trim());
  return m ? m[1].toUpperCase() : null;
}

/**
 * The abstract text of an inverted index ({word: [positions]}): words placed at their
 * positions, joined by spaces. Null when there is none; an error string when it is malformed.
 */
export function abstractFromInvertedIndex(index: unknown): { text: string | null } | { error: string } {
  if (index === null || index === undefined) return { text: null };
  if (typeof index !== "object" || Array.isArray(index))
    return { error: `"abstract_inverted_index" must be an object of word → positions, got ${showValue(index)}` };
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index as Record<string, unknown>)) {
    if (!Array.isArray(positions) || positions.some((p) => !Number.isInteger(p) || (p as number) < 0 || (p as number) > 1_000_000)) {
      return { error: `"abstract_inverted_index" must list word positions as non-negative integers, got ${showValue(positions)} for ${JSON.stringify(word)}` };
    }
    for (const p of positions as number[]) words[p] = word;
  }
  const joined = words.filter((w) => w !== undefined).join(" ");
  const t = stripMarkup(joined);
  return { text: t ? t : null };
}

export async function readOpenAlex(path: string, c: CorpusCollector): Promise<CorpusFiles> {
  const { root, files } = partFiles(path, "OpenAlex works");
  for (const file of files) {
    await forEachJsonLine(file, fileLabel(root, file), c, (r, loc: Location) => {
      const id = openAlexWorkId(r.id);
      if (!id) {
        c.badRecord(loc, `"id" must be an OpenAlex work id such as "https://openalex.org/W2741809807", got ${showValue(r.id)}`);
        return;
      }
      const abstract = abstractFromInvertedIndex(r.abstract_inverted_index);
      if ("error" in abstract) {
        c.badRecord(loc, abstract.error);
        return;
      }
      const title = text(r.title) ?? text(r.display_name);
      const authorships = Array.isArray(r.authorships) ? r.authorships : [];
      const kept = c.paper(loc, {
        id,
        title: title === null ? null : stripMarkup(title),
        abstract: abstract.text,
        year: typeof r.publication_year === "number" ? r.publication_year : yearOf(text(r.publication_date)),
        venue: text(at(r, "primary_location", "source", "display_name")) ?? text(at(r, "host_venue", "display_name")),
        authors: authorships.map((a) => text(at(a, "author", "display_name")) ?? text(at(a, "raw_author_name"))).filter((n): n is string => n !== null),
      });
      if (!kept || !Array.isArray(r.referenced_works)) return;
      for (const ref of r.referenced_works) {
        const cited = openAlexWorkId(ref);
        if (cited) c.citation(id, cited);
      }
    });
  }
  // Citations come from the works themselves: stored citations are synced to them.
  return { papers: files.length === 1 ? files[0] : root, citations: files.length === 1 ? files[0] : root, queries: null, queryGold: null };
}
