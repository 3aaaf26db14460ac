/**
 * Semantic Scholar Academic Graph datasets: the papers dataset (corpusid, title, year, venue,
 * authors, externalids, …), the abstracts dataset ({corpusid, abstract}) and the citations
 * dataset ({citingcorpusid, citedcorpusid}), each a JSON Lines file or a folder of the
 * release's shards. Give the directory holding papers…, abstracts… and citations… entries, or
 * the papers file itself (its siblings are found by the same names). Ids are corpus ids; only
 * abstracts and citations of the imported papers are used (the datasets cover all of S2).
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { CorpusFiles } from "../read";
import { showValue } from "../paper-schema";
import type { CorpusCollector, Location } from "./collect";
import { s2Layout, type S2Layout } from "./detect";
import { at, fileLabel, forEachJsonLine, text } from "./jsonl";
import { squash, yearOf } from "./text";

/** A corpus id as its decimal string, or null when the value is not one. */
export function corpusId(v: unknown): string | null {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return v.trim();
  return null;
}

function layoutOf(path: string): { root: string; layout: S2Layout } {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new Error(`Corpus path not found: ${abs}`);
  if (statSync(abs).isDirectory()) {
    const layout = s2Layout(abs);
    if (layout.papers.length === 0) {
      throw new Error(
        `No Semantic Scholar papers dataset in ${abs}: expected a papers… file or folder (e.g. papers.jsonl.gz or papers/ with the release's shards), ` +
          `optionally beside abstracts… and citations…`,
      );
    }
    return { root: abs, layout };
  }
  const name = basename(abs);
  const kind = /^(abstracts|citations)/i.exec(name)?.[1];
  if (kind) throw new Error(`${abs} is the ${kind.toLowerCase()} dataset: give the papers file (or the directory holding papers…, abstracts… and citations…)`);
  const siblings = s2Layout(dirname(abs));
  return { root: dirname(abs), layout: { papers: [abs], abstracts: siblings.abstracts, citations: siblings.citations } };
}

export async function readS2(path: string, c: CorpusCollector): Promise<CorpusFiles> {
  const { root, layout } = layoutOf(path);

  // Papers first (validated once their abstracts are known).
  const records: { loc: Location; raw: Record<string, unknown> }[] = [];
  const byId = new Map<string, Record<string, unknown>>();
  for (const file of layout.papers) {
    await forEachJsonLine(file, fileLabel(root, file), c, (r, loc) => {
      const id = corpusId(r.corpusid);
      if (id === null) {
        c.badRecord(loc, r.corpusid === undefined ? `"corpusid" is missing` : `"corpusid" must be a non-negative integer, got ${showValue(r.corpusid)}`);
        return;
      }
      const authors = Array.isArray(r.authors) ? r.authors : [];
      const raw: Record<string, unknown> = {
        id,
        title: typeof r.title === "string" ? squash(r.title) : r.title,
        abstract: null,
        year: typeof r.year === "number" ? r.year : yearOf(text(r.publicationdate)),
        venue: text(r.venue) ?? text(at(r, "journal", "name")),
        authors: authors.map((a) => text(at(a, "name"))).filter((n): n is string => n !== null),
      };
      records.push({ loc, raw });
      if (!byId.has(id)) byId.set(id, raw);
    });
  }

  for (const file of layout.abstracts) {
    await forEachJsonLine(file, fileLabel(root, file), c, (r, loc) => {
      const id = corpusId(r.corpusid);
      if (id === null) {
        c.error(loc, r.corpusid === undefined ? `"corpusid" is missing` : `"corpusid" must be a non-negative integer, got ${showValue(r.corpusid)}`);
        return;
      }
      const raw = byId.get(id);
      if (!raw) return; // an abstract of a paper outside the imported set
      if (r.abstract !== null && r.abstract !== undefined && typeof r.abstract !== "string") {
        c.error(loc, `"abstract" must be a string, got ${showValue(r.abstract)}`);
        return;
      }
      if (raw.abstract === null && typeof r.abstract === "string") raw.abstract = squash(r.abstract);
    });
  }

  for (const { loc, raw } of records) c.paper(loc, raw);

  for (const file of layout.citations) {
    await forEachJsonLine(file, fileLabel(root, file), c, (r, loc) => {
      const citing = corpusId(r.citingcorpusid);
      if (citing === null) {
        c.error(loc, `"citingcorpusid" must be a corpus id, got ${showValue(r.citingcorpusid)}`);
        return;
      }
      // The dataset covers all of S2: rows of papers outside the imported set are not ours.
      if (!byId.has(citing)) return;
      // An unresolved reference (citedcorpusid null) cites nothing in S2: it counts as outside.
      c.citation(citing, corpusId(r.citedcorpusid) ?? "");
    });
  }

  const papers = layout.papers.length === 1 ? layout.papers[0] : root;
  const citations = layout.citations.length === 0 ? null : layout.citations.length === 1 ? layout.citations[0] : root;
  return { papers, citations, queries: null, queryGold: null };
}
