/**
 * Natural-language facet DocIDs (paper §"Natural-Language Facet Identifiers" and Appendix
 * "Document Identifier Construction"): every facet item of every paper is one identifier,
 * the normalised item cut to its first 12 Llama-3 tokens. Identifiers need not be unique;
 * a shared one keeps every paper behind it.
 */
import { readFileSync } from "node:fs";
import { FACETS, type Facet, type FacetLists } from "@/lib/corpus";
import { getLlama3Tokenizer } from "@/lib/text";

/** "Identifiers are truncated by token rather than by character to 12 tokens." */
export const DOCID_MAX_TOKENS = 12;

/**
 * Bullet glyphs that are markers wherever they start a line: they never begin real text.
 * U+2022 bullet, U+2023 triangular bullet, U+25E6 white bullet, U+2043 hyphen bullet,
 * U+2219 bullet operator.
 */
const BULLET_GLYPHS = new Set(["\u2022", "\u2023", "\u25E6", "\u2043", "\u2219"]);

/**
 * ASCII list markers, stripped only when followed by whitespace (or ending the line, an
 * empty bullet): items genuinely start
 * with "-0.4 BLEU", "*SEM" or "+1 BLEU", which are content, not bullets. "+" is not a
 * markdown-style bullet here for that reason: "+0.4 to 1.5 BLEU" occurs in the corpus.
 */
const ASCII_BULLETS = new Set(["-", "*"]);

/**
 * Quotation characters: ASCII double and single quote, the typographic single/double
 * quotes (U+2018-U+201F), and guillemets (U+00AB, U+00BB, U+2039, U+203A).
 */
const QUOTES = new Set(['"', "'", "\u2018", "\u2019", "\u201A", "\u201B", "\u201C", "\u201D", "\u201E", "\u201F", "\u00AB", "\u00BB", "\u2039", "\u203A"]);

/** Same whitespace as String.prototype.trim, so marker stripping and trimming agree. */
const isWhitespace = (ch: string): boolean => ch.trim() === "";

/** Drops any run of leading whitespace, bullet markers and quotation characters. */
function stripLeadingMarkers(line: string): string {
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (isWhitespace(ch) || BULLET_GLYPHS.has(ch) || QUOTES.has(ch)) {
      i += 1;
    } else if (ASCII_BULLETS.has(ch) && (i + 1 === line.length || isWhitespace(line[i + 1]))) {
      i += 2;
    } else {
      break;
    }
  }
  return line.slice(i);
}

/**
 * Normalises one facet item into the text of its DocID.
 *
 * Paper, Appendix "Document Identifier Construction": "We normalise an item line by line.
 * Leading bullet markers and quotation characters are stripped, surrounding whitespace is
 * removed, and the text is lowercased; empty lines are dropped, and the surviving lines are
 * joined with a single space. Nothing further is applied: no Unicode normalisation, no
 * punctuation stripping beyond the leading markers, and no collapsing of interior
 * whitespace."
 *
 * Readings of that text, each covered by a test:
 * - lines split at \r\n, \n or \r;
 * - only LEADING markers and quotes go ("no punctuation stripping beyond the leading
 *   markers"), so a closing quote stays: "'Divide, conquer' fusion" -> "divide, conquer' fusion";
 * - a bullet marker is a bullet glyph (•, ‣, ◦, ⁃, ∙), or "-" / "*" followed by whitespace
 *   or alone on the line;
 *   numbered prefixes ("1.", "(a)") are enumerators, not bullet markers, and stay;
 * - markers, quotes and whitespace may be mixed and repeated ("- \"x" -> "x");
 * - lowercasing is String.prototype.toLowerCase (locale-independent);
 * - interior whitespace, tabs included, is kept as is.
 */
export function normalizeFacetItem(text: string): string {
  const lines: string[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = stripLeadingMarkers(raw).trim().toLowerCase();
    if (line.length > 0) lines.push(line);
  }
  return lines.join(" ");
}

/** Token ids of an item's DocID: its normalised text, first `maxTokens` Llama-3 tokens. */
export function docIdTokens(item: string, maxTokens: number = DOCID_MAX_TOKENS): number[] {
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(`maxTokens must be a positive integer, got ${maxTokens}`);
  }
  return leadingTokens(normalizeFacetItem(item), maxTokens).tokens;
}

/** Characters of text tokenised first per wanted token (a DocID token averages ~5 characters). */
const PREFIX_CHARS_PER_TOKEN = 8;

/** The Llama-3 pre-tokenizer's two stages, when it has the shape this module expects. */
interface PreTokenizerStages {
  /** The Split stage: the text's pieces. */
  split: (text: string) => string[];
  /** The ByteLevel stage of one piece. */
  bytes: (piece: string) => string;
}

type Stage = {
  config?: { type?: string; use_regex?: boolean; add_prefix_space?: boolean };
  pre_tokenize_text?: (text: string, options: object) => string[];
  byte_encoder?: Record<number, string>;
};

let stages: PreTokenizerStages | null | undefined;

/**
 * The pre-tokenizer as its stages (Split, then ByteLevel without a regex of its own, which maps
 * each piece on its own), or null when the bundled tokenizer is configured otherwise: then the
 * whole pre-tokenizer runs. ByteLevel encodes each piece to UTF-8 and maps every byte to a
 * character; for an ASCII piece the bytes are the character codes, so the same table is read
 * directly, which is most of the DocID stage's time saved (13 µs a piece through TextEncoder).
 */
function preTokenizerStages(): PreTokenizerStages | null {
  if (stages !== undefined) return stages;
  const list = (getLlama3Tokenizer().pre_tokenizer as unknown as { tokenizers?: Stage[] }).tokenizers ?? [];
  const [split, byteLevel] = list;
  const splitText = split?.pre_tokenize_text?.bind(split);
  const pieceBytes = byteLevel?.pre_tokenize_text?.bind(byteLevel);
  const table = byteLevel?.byte_encoder;
  if (
    list.length !== 2 ||
    split.config?.type !== "Split" ||
    byteLevel.config?.type !== "ByteLevel" ||
    byteLevel.config.use_regex !== false ||
    byteLevel.config.add_prefix_space ||
    !splitText ||
    !pieceBytes ||
    !table
  ) {
    return (stages = null);
  }
  const ascii = Array.from({ length: 128 }, (_, b) => table[b]);
  stages = {
    split: (text) => splitText(text, { section_index: 0 }),
    bytes: (piece) => {
      let out = "";
      for (let i = 0; i < piece.length; i++) {
        const c = piece.charCodeAt(i);
        if (c >= 128) return pieceBytes(piece, { section_index: 0 })[0];
        out += ascii[c];
      }
      return out;
    },
  };
  return stages;
}

/** The byte-level pieces of text, as the tokenizer's pre-tokenizer gives them (the first `limit` of them through the stages). */
function prefixPieces(text: string, limit: number): { pieces: string[]; count: number } {
  const s = preTokenizerStages();
  if (!s) {
    const pieces = getLlama3Tokenizer().pre_tokenizer.pre_tokenize(text, { section_index: 0 });
    return { pieces: pieces.length > limit ? pieces.slice(0, limit) : pieces, count: pieces.length };
  }
  const split = s.split(text);
  return { pieces: split.slice(0, limit).map(s.bytes), count: split.length };
}

/**
 * The first `maxTokens` of encodeDocIdTokens(text), and whether it has more, tokenising only
 * as much of the text as they need: pre-tokenising a whole item was most of the DocID stage
 * at 64k papers (items average ~180 characters, ~30 pieces, for 12 tokens).
 *
 * Exact because every pre-tokenizer piece gives at least one token, and the Llama-3 split
 * decides a piece from its own characters and the one after it: once a prefix of the text
 * splits into maxTokens + 2 pieces, a cut can only have changed the last two, so its first
 * maxTokens pieces are the whole text's, and the text has more than maxTokens tokens. Until
 * then the prefix doubles, up to the whole text. (Checked against the whole-text encoding on
 * every item of the demo corpus in docid-corpus.test.ts, and on all 325,813 distinct items of
 * the 63,671-paper ACL Anthology.)
 */
export function leadingTokens(text: string, maxTokens: number): { tokens: number[]; truncated: boolean } {
  if (text.length === 0) return { tokens: [], truncated: false };
  const model = getLlama3Tokenizer().model;
  let cut = Math.min(text.length, PREFIX_CHARS_PER_TOKEN * maxTokens);
  for (;;) {
    const whole = cut >= text.length;
    const { pieces, count } = prefixPieces(whole ? text : text.slice(0, cut), maxTokens);
    if (whole || count >= maxTokens + 2) {
      const ids = model.convert_tokens_to_ids(model.encode(pieces));
      return { tokens: ids.length > maxTokens ? ids.slice(0, maxTokens) : ids, truncated: count > maxTokens || ids.length > maxTokens };
    }
    cut = Math.min(text.length, 2 * cut);
  }
}

/** What buildDocIdIndex needs of a paper. */
export interface DocIdSource {
  externalId: string;
  facets: FacetLists;
}

/** The DocID sources of a corpus file in Graft's papers.jsonl layout (its `id` and `facets` fields; no facets reads as none). */
export function readDocIdSources(file: string): DocIdSource[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const row = JSON.parse(line) as { id: string; facets?: FacetLists | null };
      return { externalId: row.id, facets: row.facets ?? {} };
    });
}

/** The DocIDs of one facet over the corpus. */
export interface FacetDocIds {
  facet: Facet;
  /**
   * Distinct identifiers (token ids), in first-seen order: papers in corpus order, items in
   * their listed order. An identifier's index is its position here.
   */
  identifiers: number[][];
  /**
   * For each identifier, the papers behind it as ascending paper ordinals (indices into
   * DocIdIndex.paperIds), i.e. in corpus order. Collisions keep every paper.
   */
  papersOf: number[][];
  /**
   * For each paper (by ordinal), one entry per item of this facet, in item order: the
   * identifier index, or -1 when the item normalises to empty text and so has no DocID.
   */
  itemIdentifiers: number[][];
  /** Items seen in this facet. */
  itemCount: number;
  /** Items whose normalised text was empty (no identifier). */
  emptyItemCount: number;
  /** Items whose tokenisation was longer than maxTokens and was cut. */
  truncatedItemCount: number;
}

export interface DocIdIndex {
  maxTokens: number;
  /** External ids in corpus order; a paper's ordinal is its position here. */
  paperIds: string[];
  facets: Record<Facet, FacetDocIds>;
}

/**
 * Builds the per-facet DocIDs of a corpus. Papers keep their input order (it is the
 * "in-corpus order" in which colliding papers take consecutive ranks at resolution).
 * Throws on a duplicated externalId, since ordinals must identify papers.
 */
export interface BuildDocIdOptions {
  /** Called every PROGRESS_EVERY papers of each facet and at the end: (papers × facets done, papers × facets). */
  onProgress?: (done: number, total: number) => void;
}

/** How often buildDocIdIndex reports progress, in papers. */
const PROGRESS_EVERY = 2000;

export function buildDocIdIndex(papers: readonly DocIdSource[], maxTokens: number = DOCID_MAX_TOKENS, options: BuildDocIdOptions = {}): DocIdIndex {
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(`maxTokens must be a positive integer, got ${maxTokens}`);
  }
  const paperIds: string[] = [];
  const seenIds = new Set<string>();
  for (const paper of papers) {
    if (seenIds.has(paper.externalId)) {
      throw new Error(`buildDocIdIndex: duplicate externalId ${paper.externalId}`);
    }
    seenIds.add(paper.externalId);
    paperIds.push(paper.externalId);
  }

  // Repeated item texts (shared items, an item listed under two facets) are tokenised once.
  const tokenCache = new Map<string, { tokens: number[]; truncated: boolean }>();
  const tokensOf = (item: string): { tokens: number[]; truncated: boolean } => {
    let hit = tokenCache.get(item);
    if (hit === undefined) {
      hit = leadingTokens(normalizeFacetItem(item), maxTokens);
      tokenCache.set(item, hit);
    }
    return hit;
  };

  const facets = {} as Record<Facet, FacetDocIds>;
  const total = papers.length * FACETS.length;
  for (const [facetIndex, facet] of FACETS.entries()) {
    const identifiers: number[][] = [];
    const papersOf: number[][] = [];
    const itemIdentifiers: number[][] = [];
    // Token ids joined with "," are an exact key for a sequence of integers.
    const byKey = new Map<string, number>();
    let itemCount = 0;
    let emptyItemCount = 0;
    let truncatedItemCount = 0;

    papers.forEach((paper, ordinal) => {
      const items = paper.facets[facet] ?? [];
      const row: number[] = [];
      for (const item of items) {
        itemCount += 1;
        const { tokens, truncated } = tokensOf(item);
        if (tokens.length === 0) {
          emptyItemCount += 1;
          row.push(-1);
          continue;
        }
        if (truncated) truncatedItemCount += 1;
        const key = tokens.join(",");
        let id = byKey.get(key);
        if (id === undefined) {
          id = identifiers.length;
          byKey.set(key, id);
          identifiers.push(tokens);
          papersOf.push([]);
        }
        const owners = papersOf[id];
        // Papers are visited in ascending ordinal order, so checking the last entry both
        // deduplicates (a paper listing the same item twice) and keeps the list sorted.
        if (owners[owners.length - 1] !== ordinal) owners.push(ordinal);
        row.push(id);
      }
      itemIdentifiers.push(row);
      if (options.onProgress && (ordinal + 1) % PROGRESS_EVERY === 0) options.onProgress(facetIndex * papers.length + ordinal + 1, total);
    });
    options.onProgress?.((facetIndex + 1) * papers.length, total);

    facets[facet] = {
      facet,
      identifiers,
      papersOf,
      itemIdentifiers,
      itemCount,
      emptyItemCount,
      truncatedItemCount,
    };
  }
  return { maxTokens, paperIds, facets };
}

/** DocID statistics of one facet, as the paper's Appendix reports them. */
export interface FacetDocIdStatistics {
  facet: Facet;
  items: number;
  emptyItems: number;
  /** Items cut to maxTokens ("This affects 184,284 of the 184,288 identifiers"). */
  truncatedItems: number;
  distinctDocIds: number;
  /** Identifiers shared by more than one paper. */
  collisions: number;
  /** Papers over all identifiers divided by identifiers ("1.0003" in the paper). */
  meanPapersPerDocId: number;
  /** The most papers sharing one identifier ("at most three"). */
  maxPapersPerDocId: number;
  /** Papers with at least one identifier in this facet. */
  papersWithDocIds: number;
  /** distinctDocIds / papersWithDocIds (the paper's "dividing leaves by papers"). */
  docIdsPerPaper: number;
}

export interface DocIdStatistics {
  papers: number;
  maxTokens: number;
  facets: Record<Facet, FacetDocIdStatistics>;
  /** Sums over facets (an identifier in two facets counts twice, as in the paper). */
  total: Omit<FacetDocIdStatistics, "facet" | "docIdsPerPaper">;
}

/** Postings of a facet's identifiers: in all, identifiers shared by more than one paper, the papers behind those, the most behind one. */
export function postingCounts(papersOf: readonly (readonly number[])[]): {
  postings: number;
  collisions: number;
  papersInCollisions: number;
  maxPapers: number;
} {
  let postings = 0;
  let collisions = 0;
  let papersInCollisions = 0;
  let maxPapers = 0;
  for (const owners of papersOf) {
    postings += owners.length;
    if (owners.length > 1) {
      collisions += 1;
      papersInCollisions += owners.length;
    }
    if (owners.length > maxPapers) maxPapers = owners.length;
  }
  return { postings, collisions, papersInCollisions, maxPapers };
}

export function docIdStatistics(index: DocIdIndex): DocIdStatistics {
  const facets = {} as Record<Facet, FacetDocIdStatistics>;
  const total = {
    items: 0,
    emptyItems: 0,
    truncatedItems: 0,
    distinctDocIds: 0,
    collisions: 0,
    meanPapersPerDocId: 0,
    maxPapersPerDocId: 0,
    papersWithDocIds: 0,
  };
  let totalPostings = 0;
  const papersAnywhere = new Set<number>();

  for (const facet of FACETS) {
    const f = index.facets[facet];
    const { postings, collisions, maxPapers } = postingCounts(f.papersOf);
    let papersWithDocIds = 0;
    f.itemIdentifiers.forEach((row, ordinal) => {
      if (row.some((id) => id >= 0)) {
        papersWithDocIds += 1;
        papersAnywhere.add(ordinal);
      }
    });
    const distinct = f.identifiers.length;
    facets[facet] = {
      facet,
      items: f.itemCount,
      emptyItems: f.emptyItemCount,
      truncatedItems: f.truncatedItemCount,
      distinctDocIds: distinct,
      collisions,
      meanPapersPerDocId: distinct === 0 ? 0 : postings / distinct,
      maxPapersPerDocId: maxPapers,
      papersWithDocIds,
      docIdsPerPaper: papersWithDocIds === 0 ? 0 : distinct / papersWithDocIds,
    };
    total.items += f.itemCount;
    total.emptyItems += f.emptyItemCount;
    total.truncatedItems += f.truncatedItemCount;
    total.distinctDocIds += distinct;
    total.collisions += collisions;
    total.maxPapersPerDocId = Math.max(total.maxPapersPerDocId, maxPapers);
    totalPostings += postings;
  }
  total.meanPapersPerDocId = total.distinctDocIds === 0 ? 0 : totalPostings / total.distinctDocIds;
  total.papersWithDocIds = papersAnywhere.size;
  return { papers: index.paperIds.length, maxTokens: index.maxTokens, facets, total };
}
