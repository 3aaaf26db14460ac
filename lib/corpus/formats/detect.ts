/**
 * Which import format a path holds: named by `graft import --format`, or told from the path
 * (a directory's layout, a file's extension) and the first line of its data when the format
 * is not named. Kept free of the parsers themselves, so resolving a path costs nothing.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { readLines } from "../lines";

export const IMPORT_FORMATS = ["graft", "bibtex", "ris", "openalex", "s2", "arxiv"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export const FORMAT_LABELS: Record<ImportFormat, string> = {
  graft: "Graft's corpus layout, papers.jsonl + citations.tsv",
  bibtex: "BibTeX or BibLaTeX",
  ris: "RIS",
  openalex: "OpenAlex works, JSON Lines",
  s2: "Semantic Scholar papers, abstracts and citations datasets",
  arxiv: "the arXiv metadata snapshot, JSON Lines",
};

/** Short names, for one-line summaries. */
export const FORMAT_NAMES: Record<ImportFormat, string> = {
  graft: "Graft JSONL",
  bibtex: "BibTeX",
  ris: "RIS",
  openalex: "OpenAlex",
  s2: "Semantic Scholar",
  arxiv: "arXiv",
};

const FORMAT_FLAG = `--format ${IMPORT_FORMATS.join("|")}`;

/** What one line of a data file says about its format, or null when it says nothing. */
export function sniffLine(line: string): ImportFormat | null {
  const s = line.trim();
  if (/^TY {2}-/.test(s)) return "ris";
  if (/^@[A-Za-z]+\s*[{(]/.test(s)) return "bibtex";
  if (!s.startsWith("{")) return null;
  let o: unknown;
  try {
    o = JSON.parse(s);
  } catch {
    return null;
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) return null;
  const r = o as Record<string, unknown>;
  if ("corpusid" in r || "citingcorpusid" in r) return "s2";
  if ((typeof r.id === "string" && /openalex\.org\/W\d+$/i.test(r.id)) || "abstract_inverted_index" in r || "referenced_works" in r || "authorships" in r)
    return "openalex";
  if ("authors_parsed" in r || ("categories" in r && ("versions" in r || "submitter" in r || "update_date" in r))) return "arxiv";
  return "graft";
}

/** The format the first meaningful line of a (possibly gzipped) file suggests: blank lines and %-comments are passed over. */
export async function sniffFile(file: string): Promise<ImportFormat | null> {
  let seen = 0;
  try {
    for await (const { line } of readLines(file)) {
      if (line.trim() === "" || line.trimStart().startsWith("%")) {
        if (++seen > 200) return null;
        continue;
      }
      return sniffLine(line);
    }
  } catch {
    // Unreadable (e.g. a truncated .gz): the reader of the format will say where.
  }
  return null;
}

/** The data files under a directory, in name order, descending into subdirectories; hidden files and manifests skipped. */
export function dataFiles(dir: string, depth = 4): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || /^(manifest|readme|license)/i.test(name) || /\.(md|txt|html|pdf|py|sh)$/i.test(name)) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      if (depth > 0) out.push(...dataFiles(p, depth - 1));
    } else if (st.isFile()) out.push(p);
  }
  return out;
}

export interface S2Layout {
  papers: string[];
  abstracts: string[];
  citations: string[];
}

/**
 * The Semantic Scholar dataset files in a directory: entries named papers…, abstracts… and
 * citations… (a file such as papers.jsonl.gz, or a folder of the release's shards).
 */
export function s2Layout(dir: string): S2Layout {
  const layout: S2Layout = { papers: [], abstracts: [], citations: [] };
  for (const name of readdirSync(dir).sort()) {
    const m = /^(papers|abstracts|citations)/i.exec(name);
    if (!m) continue;
    const p = join(dir, name);
    const st = statSync(p);
    const files = st.isDirectory() ? dataFiles(p) : st.isFile() ? [p] : [];
    layout[m[1].toLowerCase() as keyof S2Layout].push(...files);
  }
  return layout;
}

const GRAFT_FILE = /\.(jsonl|json-lines|ndjson)(\.gz)?$/i;

/** The import format of `path`; throws a plain Error saying what to do when it cannot tell. */
export async function detectFormat(path: string): Promise<ImportFormat> {
  const abs = resolve(path);
  // A missing path is reported by the graft reader, in its words.
  if (!existsSync(abs)) return "graft";
  if (statSync(abs).isDirectory()) {
    for (const name of ["papers.jsonl", "papers.jsonl.gz"]) {
      // A path the user gives at run time: without the ignore comments, Turbopack's file tracing
      // takes `<any folder>/papers.jsonl` as a pattern and ships the whole project with the server.
      const p = join(/* turbopackIgnore: true */ abs, name);
      if (existsSync(/* turbopackIgnore: true */ p) && statSync(/* turbopackIgnore: true */ p).isFile()) return (await sniffFile(p)) === "s2" ? "s2" : "graft";
    }
    const s2 = s2Layout(abs);
    if (s2.papers.length > 0) return "s2";
    const files = dataFiles(abs);
    if (files.length > 0) {
      const sniffed = await sniffFile(files[0]);
      if (sniffed === "openalex" || sniffed === "arxiv") return sniffed;
    }
    return "graft"; // its reader says what a corpus directory holds
  }
  const name = basename(abs).toLowerCase().replace(/\.gz$/, "");
  const sniffed = await sniffFile(abs);
  const byName: ImportFormat | null = /\.(bib|bibtex|biblatex)$/.test(name) ? "bibtex" : /\.ris$/.test(name) ? "ris" : null;
  if (byName) {
    if (sniffed === null || sniffed === byName) return byName;
    throw new Error(
      `${abs} is named like ${FORMAT_NAMES[byName]} but its first line looks like ${FORMAT_NAMES[sniffed]}: give ${FORMAT_FLAG} to say which it is.`,
    );
  }
  if (sniffed) return sniffed;
  if (GRAFT_FILE.test(abs)) return "graft"; // its reader reports the bad lines
  throw new Error(
    `Not a corpus: ${abs}. Its format cannot be told from its name or first line: give ${FORMAT_FLAG} ` +
      `(graft = a corpus directory with papers.jsonl, or a .jsonl / .jsonl.gz file of papers).`,
  );
}
