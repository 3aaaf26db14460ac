import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS, FACETS } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { resolveLimits, checkSize } from "@/lib/input";
import { CodedError } from "@/lib/errors";
import {
  FACET_LETTERS,
  relatedOptions,
  type RelatedInput,
  type RelatedOptions,
  MAX_SEEDS,
  type MultiSeedResult,
  DEFAULT_FUSION,
  DEFAULT_RETRIEVER,
  DIRECTION_FILTERS,
  FUSION_NAMES,
  RETRIEVER_NAMES,
  type RelatedResult,
} from "@/lib/query";
import { relatedPapersOf, relatedToSeedsOf } from "@/lib/query/request";
import { isUsageError } from "../exit-codes";
import { emit, parseOptions, table, UsageError } from "../output";

const source = z
  .object({
    corpus: corpusName.default(DEFAULT_CORPUS),
    paperId: z.string().trim().min(1).max(300).optional(),
    file: z.string().trim().min(1).optional(),
    text: z.string().optional(),
    batch: z.string().trim().min(1).optional(),
  })
  .refine((o) => [o.paperId, o.file, o.text, o.batch].filter((x) => x !== undefined).length === 1, {
    message: "give exactly one of --paper-id, --file, --text or --batch",
  });

export function registerQuery(program: Command): void {
  program
    .command("query")
    .description("related papers for a corpus paper, a paper file (PDF, .txt, .json record) or pasted text, each with the facets that surfaced it")
    .option(
      "--paper-id <id>",
      "id of a paper in the store, e.g. P19-1542 (corpus papers and out-of-corpus query papers); several comma-separated ids (A,B,C) are seeds whose results are fused (RRF over seeds), each result saying which seed(s) and facet(s) surfaced it",
    )
    .option("--file <path>", "a paper to query with: PDF, plain text, or a JSON record (title, abstract, facets…)")
    .option("--text <text>", 'the paper\'s text (title on the first line, then the abstract); "-" reads it from standard input')
    .option(
      "--batch <file>",
      "many papers in one process (one graph and model load): a JSONL file of paper records ({id?, title, abstract, facets?}) or of {paperId}; prints one JSON line per input line, {line, id, result} or {line, id, error}; a bad line is reported as file:line: reason and the others still run (exit code 2 if any failed)",
    )
    .option("--corpus <name>", `corpus name (default: ${DEFAULT_CORPUS})`)
    .option("--k <k>", "number of results (default 20; with --candidates, all of them)")
    .option("--retriever <name>", `retriever: ${RETRIEVER_NAMES.join(" | ")}`, DEFAULT_RETRIEVER)
    .option(
      "--fusion <name>",
      `fusion: ${FUSION_NAMES.join(" | ")} (auto: the retriever's own rule; graph-rrf runs as corroboration RRF for papers outside the graph)`,
      DEFAULT_FUSION,
    )
    .option("--facets <list>", "comma-separated facets to query (default: all four)")
    .option("--year-from <year>")
    .option("--year-to <year>")
    .option("--venue <venue>")
    .option(
      "--direction <which>",
      `${DIRECTION_FILTERS.join(" | ")}: earlier work (published before the query's year), later work (after), or both; a paper without a year is measured from the median year of the papers whose words match it most`,
      "both",
    )
    .option(
      "--candidates <file>",
      "re-rank these corpus papers only (a reading list, a benchmark's pool): a file of paper ids, one per line (or comma-separated; # starts a comment); every candidate is ranked, those the retriever did not reach last, in the file's order",
    )
    .option("--json", "machine-readable output (results, provenance and per-facet lists)")
    .action(async (raw: Record<string, unknown>) => {
      const src = parseOptions(source, { corpus: raw.corpus, paperId: raw.paperId, file: raw.file, text: raw.text, batch: raw.batch });
      const options = parseOptions(relatedOptions, { ...raw, ...(raw.candidates !== undefined ? { candidates: readCandidates(String(raw.candidates)) } : {}) });
      if (src.batch !== undefined) {
        const failed = await runBatch(src.batch, src.corpus, options);
        if (failed > 0) process.exitCode = 2;
        return;
      }
      const seedIds =
        src.paperId
          ?.split(",")
          .map((x) => x.trim())
          .filter(Boolean) ?? [];
      if (seedIds.length > 1) {
        if (seedIds.length > MAX_SEEDS) throw new UsageError(`--paper-id: at most ${MAX_SEEDS} seeds`);
        let multi: MultiSeedResult;
        try {
          multi = await relatedToSeedsOf(getDb(), { corpus: src.corpus, seeds: [...new Set(seedIds)].map((paperId) => ({ paperId })), options });
        } catch (err) {
          if (isLineError(err)) throw new UsageError((err as Error).message);
          throw err;
        }
        emit(raw, multi, () => renderMulti(multi));
        return;
      }
      let input: RelatedInput;
      if (src.paperId !== undefined) input = { corpus: src.corpus, paperId: src.paperId };
      else if (src.text !== undefined) input = { corpus: src.corpus, text: src.text === "-" ? await readStdinText() : src.text };
      else input = { corpus: src.corpus, file: readInputFile(src.file as string) };
      // Bad input is the user's to fix: main's exit table (lib/cli/exit-codes.ts) answers 2 with the reader's own sentence.
      const result = await relatedPapersOf(getDb(), input, options);
      emit(raw, result, () => render(result));
    });
}

/** `--text -`: the paper's text from standard input, refused once it passes the upload limit. */
async function readStdinText(): Promise<string> {
  const limits = resolveLimits();
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    bytes += (chunk as Buffer).length;
    try {
      checkSize(bytes, limits, "text on standard input");
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Errors a batch line reports and moves on from: the caller's to fix (exit 2 in lib/cli/exit-codes.ts).
 * A missing set-up step (no graph build, no trained model) fails every line alike, so it ends the
 * run, as anything unexpected or temporary (a broken store) does.
 */
function isLineError(err: unknown): boolean {
  if (err instanceof z.ZodError) return true;
  return err instanceof CodedError && err.code !== "not_ready" && isUsageError(err);
}

/** One line of a batch file as relatedPapers' input, with the id to echo back. */
function batchInput(value: unknown, corpus: string): { input: RelatedInput; id: string | null } {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError("a line must be a JSON object: a paper record {id?, title, abstract, facets?} or {paperId}");
  const rec = value as Record<string, unknown>;
  if ("paperId" in rec) {
    if (typeof rec.paperId !== "string" || rec.paperId.trim() === "") throw new UsageError("paperId must be a non-empty string");
    if (Object.keys(rec).some((k) => k !== "paperId"))
      throw new UsageError('a {paperId} line holds nothing else (give a paper record without "paperId" instead)');
    return { input: { corpus, paperId: rec.paperId.trim() }, id: rec.paperId.trim() };
  }
  return { input: { corpus, paper: rec }, id: typeof rec.id === "string" ? rec.id : null };
}

/**
 * `--batch`: every non-blank line of a JSONL file through relatedPapers in this one process (the
 * graph, embedder and extractor load once), one JSON line out per line in. Returns how many failed.
 */
async function runBatch(file: string, corpus: string, options: RelatedOptions): Promise<number> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--batch: cannot read "${file}"`);
  }
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines.every((l) => l.trim() === "")) throw new UsageError(`--batch: "${file}" holds no papers`);
  let failed = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === "") continue;
    const line = i + 1;
    let id: string | null = null;
    try {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (err) {
        throw new UsageError(`not valid JSON (${(err as Error).message})`);
      }
      const parsed = batchInput(value, corpus);
      id = parsed.id;
      const result = await relatedPapersOf(getDb(), parsed.input, options);
      process.stdout.write(`${JSON.stringify({ line, id, result })}\n`);
    } catch (err) {
      if (!(err instanceof UsageError) && !isLineError(err)) throw err;
      failed++;
      const error = `${file}:${line}: ${err instanceof z.ZodError ? err.issues.map((x) => x.message).join("; ") : (err as Error).message}`;
      process.stderr.write(`${error}\n`);
      process.stdout.write(`${JSON.stringify({ line, id, error })}\n`);
    }
  }
  if (failed > 0) process.stderr.write(`${failed} of the lines of ${file} failed\n`);
  return failed;
}

/** Paper ids from a file: one per line or comma-separated, blank lines and # comments ignored. */
function readCandidates(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--candidates: cannot read "${file}"`);
  }
  const ids = text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, ""))
    .flatMap((l) => l.split(","))
    .map((x) => x.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new UsageError(`--candidates: "${file}" holds no paper ids`);
  return ids;
}

/** The file's bytes, refusing one over the upload limit before reading it. */
function readInputFile(file: string): { name: string; bytes: Uint8Array } {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new UsageError(`--file: cannot read "${file}"`);
  }
  try {
    checkSize(size, resolveLimits(), "file");
  } catch (err) {
    throw new UsageError(`--file: ${(err as Error).message}`);
  }
  return { name: path.basename(file), bytes: new Uint8Array(readFileSync(file)) };
}

/** `text` cut to `max` characters, an ellipsis marking the cut. */
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const FACET_LEGEND = "P problems · M methods · R results · C contributions";
/** A candidate file's paper that no list reached (ranked last, in the file's order). */
const NOT_REACHED = "(not reached)";

/** A result table's own columns between year and title: header → cell. */
type PaperColumns<R> = Record<string, (r: R) => string>;

/** The ranked papers as a table: #, id, year, the caller's own columns, then the title cut to `titleWidth`. */
function paperTable<R extends { externalId: string; year: number | null; title: string }>(
  results: readonly R[],
  own: PaperColumns<R>,
  titleWidth: number,
): string {
  const cells = Object.values(own);
  return table(
    ["#", "id", "year", ...Object.keys(own), "title"],
    results.map((r, i) => [i + 1, r.externalId, r.year ?? "", ...cells.map((cell) => cell(r)), clip(r.title, titleWidth)]),
  );
}

function renderMulti(result: MultiSeedResult): string {
  const seeds = result.seeds.map((s) => `S${s.index + 1} ${s.externalId ?? s.title}`).join(", ");
  const lines = [
    `${result.seeds.length} seeds (${seeds}) — ${result.retriever}, each seed's lists by ${[...new Set(result.seedFusion)].join("/")}, then RRF over seeds (k=${result.rrfK}), ${result.timings.totalMs.toFixed(0)} ms`,
  ];
  if (result.candidates)
    lines.push(`Re-ranked ${result.candidates.ranked} of ${result.candidates.given} candidates: ${result.candidates.reached} reached by some seed.`);
  const columns: PaperColumns<MultiSeedResult["results"][number]> = {
    seeds: (r) => (r.unreached ? NOT_REACHED : r.seeds.map((s) => `S${s.seed + 1}#${s.rank}`).join(" ")),
    facets: (r) => r.facets.map((f) => FACET_LETTERS[f]).join(""),
  };
  lines.push(
    "",
    paperTable(result.results, columns, 60),
    "",
    `seeds: S<n>#<rank> = the paper's rank in seed n's list · facets: ${FACET_LEGEND} (--json for each seed's facets)`,
  );
  return lines.join("\n");
}

function render(result: RelatedResult): string {
  const q = result.query;
  const label = q.title || "(untitled)";
  const how = [
    `${result.retriever} + ${result.fusion}`,
    `build ${result.build}`,
    q.extraction ? `facets by ${q.extraction.model} (${q.extraction.ms.toFixed(0)} ms)` : null,
    `${result.timings.totalMs.toFixed(0)} ms`,
  ].filter(Boolean);
  const lines = [`${label}${q.externalId ? ` (${q.externalId})` : ""} [${q.source}${q.inGraph ? "" : ", not in the graph"}] — ${how.join(", ")}`];
  if (result.fusionNote) lines.push(result.fusionNote);
  const c = result.candidates;
  if (c) {
    const left = c.excluded.length > 0 ? `; left out: ${c.excluded.join(", ")} (the query itself or filtered)` : "";
    lines.push(
      `Re-ranked ${c.ranked} of ${c.given} candidates: ${c.reached} reached by the retriever, ${c.ranked - c.reached} not (last, in the file's order)${left}.`,
    );
  }
  if (q.year)
    lines.push(
      `Earlier / later work measured from ${q.year.source === "paper" ? `the paper's year, ${q.year.value}` : `${q.year.value}, the median year of the papers whose words match it most`}.`,
    );
  if (q.extraction) {
    for (const f of FACETS) for (const item of q.facets[f]) lines.push(`  ${FACET_LETTERS[f]}  ${clip(item, 110)}`);
  }
  const columns: PaperColumns<RelatedResult["results"][number]> = {
    work: (r) => (r.direction === "earlier" || r.direction === "later" ? r.direction : ""),
    facets: (r) => (r.unreached ? NOT_REACHED : r.facets.map((f) => `${FACET_LETTERS[f.facet]}${f.rank}`).join(" ")),
  };
  lines.push(
    "",
    paperTable(result.results, columns, 70),
    "",
    `work: earlier or later than the query (blank: the same year or undated) · facets: ${FACET_LEGEND}, with the paper's rank in that facet's list (--json for the evidence)`,
  );
  return lines.join("\n");
}
