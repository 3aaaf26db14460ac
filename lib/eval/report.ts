/**
 * The evaluation report: one stable JSON shape (what `reports/eval-latest.json` holds and the
 * web app's Evaluation page renders), its Markdown rendering, and the files a run writes.
 *
 *   { "tables": { "main": [{ "method": "graft" | "dense-graph" | "bm25" | …, "R@5": …, "R@10": …,
 *     "R@20": …, "R@50": … }], "ooc": […], … }, "attribution": { "precision": … },
 *     "coverage": { … }, "nonObvious": { … }, "manifest": { … } }
 *
 * A row that did not run carries `status: "not run"` and `reason`; a row that cannot run
 * offline carries `status: "not reproduced"` and only the paper's figures (`paper`).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "@/lib/atomic-write";
import { FACETS, type Facet } from "@/lib/corpus";
import type { RecallReport } from "./dense-graph";
import type { NonObviousRow, NonObviousStats } from "./nonobvious";
import type { Cutoff, PaperRecall } from "./paper-figures";
import { csfcubeMarkdown, readCsfcubeReport, type CsfcubeState } from "./csfcube-report";
import { coverageLadderSvg, recallCurvesSvg } from "./svg";

export const CUTOFFS = ["R@5", "R@10", "R@20", "R@50"] as const satisfies readonly Cutoff[];
export const cutoffK = (c: Cutoff): number => Number(c.slice(2));
export type { Cutoff, PaperRecall };

export const SUITES = ["main", "ooc", "ablations", "user-papers"] as const;
export type Suite = (typeof SUITES)[number];

/**
 * The parts of each suite that can run on their own (`graft eval --only`): "fusion" also
 * yields the leave-one-out table and in-corpus attribution; "ooc" the non-obvious analysis and
 * out-of-corpus attribution; "userPapers" both user-paper tables (lib/eval/user-papers-suite.ts).
 */
export const SUITE_PARTS = {
  main: ["main", "fusion", "coverage"],
  ooc: ["ooc"],
  ablations: ["walkDepth", "alpha", "kMin", "identifiers", "supervision"],
  "user-papers": ["userPapers"],
} as const satisfies Record<Suite, readonly string[]>;
export type Part = (typeof SUITE_PARTS)[Suite][number];
export const PARTS = Object.values(SUITE_PARTS).flat() as Part[];

export type RowStatus = "ok" | "not run" | "not reproduced";

export interface RecallRow extends Partial<Record<Cutoff, number>> {
  /** Stable id: "graft", "dense-graph", "bm25", "doc-dense", "dense-only", "minder", … */
  method: string;
  label: string;
  status: RowStatus;
  /** Why a row has no numbers. */
  reason?: string;
  /** 95% bootstrap interval per cutoff. */
  ci?: Partial<Record<Cutoff, [number, number]>>;
  queries?: number;
  meanGold?: number;
  seconds?: number;
  /** The paper's figure for the same row. */
  paper?: PaperRecall;
  /** Which candidate lists a fusion row fused ("dense-items" or "generative:<variant>"). */
  lists?: string;
  /** Leave-one-out: change in R@20 from the full fusion. */
  delta?: number;
  /** Sweep parameter of the row (α, walk depth, K_min). */
  param?: number;
}

export const TABLES = {
  main: { title: "Main results (in-corpus, test split)", cutoffs: CUTOFFS },
  ooc: { title: "Out-of-corpus queries", cutoffs: CUTOFFS },
  fusion: { title: "Fusion rules", cutoffs: ["R@20", "R@50"] },
  leaveOneOut: { title: "Graph-RRF, leave one facet out", cutoffs: ["R@20"] },
  walkDepth: { title: "Walk depth (dense-graph, test split)", cutoffs: ["R@20", "R@50"] },
  alpha: { title: "Edge-weight sweep α (dense-graph, dev split)", cutoffs: ["R@20", "R@50"] },
  kMin: { title: "Coverage floor K_min", cutoffs: ["R@20", "R@50"] },
  identifiers: { title: "Identifier schemes (uniform sampling)", cutoffs: ["R@20", "R@50"] },
  supervision: { title: "Supervision and objective alternatives", cutoffs: ["R@20", "R@50"] },
} as const satisfies Record<string, { title: string; cutoffs: readonly Cutoff[] }>;
export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

export interface AttributionRow {
  id: string;
  label: string;
  setting: "in-corpus" | "out-of-corpus";
  lists: string;
  fusion: string;
  status: RowStatus;
  reason?: string;
  precision?: number;
  subsetShare?: number;
  pairs?: number;
  perFacet?: Partial<Record<Facet, number>>;
}

export interface AttributionSection {
  /** The headline: graph-RRF in-corpus over the generative lists, else over dense item lists. */
  precision: number;
  subsetShare: number;
  pairs: number;
  perFacet: Partial<Record<Facet, number>>;
  lists: string;
  fusion: string;
  reference: string;
  rows: AttributionRow[];
  paper: { precision: number; subsetShare: number; perFacet: Partial<Record<Facet, number>> };
}

export interface CoverageVariantRow {
  variant: string;
  label: string;
  status: RowStatus;
  reason?: string;
  examples?: number;
  /** Share of corpus papers that are a training target at all. */
  targetCoverage?: number;
  targetPapers?: number;
  identifiersUnderKMin?: number;
  byOrigin?: Record<string, number>;
  seconds?: number;
  paper?: number;
}

export interface CoverageSection {
  papers: number;
  /** Papers with an incoming edge in some facet when each keeps its top-K (any source). */
  byK: { k: number; covered: number; share: number; perFacet: Partial<Record<Facet, number>>; paper?: number }[];
  /** Training-target coverage of each distillation recipe (train sources only). */
  variants: CoverageVariantRow[];
}

export interface NonObviousMethodRow extends Partial<NonObviousRow> {
  method: string;
  label: string;
  status: RowStatus;
  reason?: string;
  paper?: Partial<NonObviousRow>;
}

export interface NonObviousSection {
  k: number;
  nearest: number;
  queries: number;
  baseRate: number;
  control: NonObviousStats;
  rows: NonObviousMethodRow[];
  paper: { baseRate: number };
}

// ── papers users bring (issue 17): the served pipeline on two query sets with citation gold ──

/** An estimate with its 95% paired-bootstrap interval (absent when a resample divides by zero). */
export interface PairedEstimate {
  value: number;
  ci?: [number, number];
}

export interface UserPaperRow extends Partial<Record<Cutoff, number>> {
  /** "hybrid", "hybrid-with-generative", "graft", "dense-graph", "bm25", "bm25-whole-paper". */
  method: string;
  label: string;
  /** The retriever and fusion requested from relatedPapers. */
  retriever: string;
  fusion: string;
  /** The fusion relatedPapers applied ("auto" resolved; graph-RRF of an unseen paper may run as corroboration RRF). */
  appliedFusion?: string;
  status: RowStatus;
  reason?: string;
  /** 95% bootstrap interval over queries (R@20). */
  ci?: Partial<Record<Cutoff, [number, number]>>;
  queries?: number;
  goldPairs?: number;
  /** Queries the pipeline answered with an error a user would see (no facets): counted as nothing found. */
  failed?: number;
  /** R@20 / the BM25 row's R@20 on the same queries. */
  ratio?: PairedEstimate;
  /** The ablation: relative change in R@20 from the `from` row, (R − R_from) / R_from. */
  change?: PairedEstimate & { from: string };
  /** Wall time of each answer, warm (ms). */
  latency?: { meanMs: number; p95Ms: number };
  seconds?: number;
  /**
   * The corpus's most-cited paper: the share of queries whose first 20 hold it, and of those whose
   * gold does (a default that returns the famous paper to everyone is not finding related work).
   */
  mostCited?: { paper: string; top20: number; gold: number };
  /** Set 2: the same row on the tuning half (which chose the settings). */
  tuning?: { "R@20": number; ci?: [number, number]; queries: number; ratio?: PairedEstimate; change?: PairedEstimate & { from: string } };
}

export type UserPaperSource = "llm" | "offline";
export const USER_PAPER_SOURCES: readonly UserPaperSource[] = ["llm", "offline"];
export const USER_PAPER_SOURCE_LABELS: Record<UserPaperSource, string> = {
  llm: "LLM facets (given with the paper)",
  offline: "Offline facets (extracted from title + abstract, as for a pasted paper)",
};

export interface UserPaperTable {
  /** "ooc": set 1; "unseen": set 2 (report half); "later": set 3 (report half). */
  id: "ooc" | "unseen" | "later";
  title: string;
  gold: string;
  queries: number;
  goldPairs: number;
  /** Set 2's tuning half. */
  tuning?: { queries: number; goldPairs: number };
  sources: Partial<Record<UserPaperSource, UserPaperRow[]>>;
  /** Set 2: every row on the tuning half as well. */
  tuningSources?: Partial<Record<UserPaperSource, UserPaperRow[]>>;
  /** The store corpus these rows ran on when it is the corpus imported without citations. */
  withoutCitations?: string;
}

export interface UserPapersSection {
  /** Store corpus the queries ran against. */
  corpus: string;
  /** Results asked of relatedPapers per query. */
  k: number;
  /** The row ratios divide by, the default pipeline's row and its ablation's row. */
  baseline: string;
  default: string;
  ablation: string;
  settings: Record<string, unknown>;
  tables: UserPaperTable[];
  seconds?: number;
}

export interface Manifest {
  command: string;
  date: string;
  wallSeconds: number;
  cpuSeconds?: number;
  loadAverage?: { start: number; end: number };
  git: { commit: string | null; dirty: boolean | null };
  node: string;
  platform: string;
  cpus: number;
  corpus: Record<string, unknown>;
  embedder: string;
  graph: Record<string, unknown>;
  retrieval: Record<string, unknown>;
  bootstrap: { resamples: number; seed: number; level: number };
  generative: Record<string, unknown>;
  sectionSeconds: Record<string, number>;
  [key: string]: unknown;
}

export interface EvalReport {
  version: 1;
  /** "smoke" runs (CI) never replace the committed figures. */
  kind: "full" | "smoke";
  suites: Suite[];
  date: string;
  tables: Partial<Record<TableName, RecallRow[]>>;
  attribution?: AttributionSection;
  coverage?: CoverageSection;
  nonObvious?: NonObviousSection;
  /** Papers users bring (suite "user-papers"). */
  userPapers?: UserPapersSection;
  /**
   * The gold each in-corpus table was scored against, by table (set by runs since the switch to
   * out-neighbour gold; a table without an entry predates it: undirected neighbour set).
   */
  tableGold?: Partial<Record<TableName, string>>;
  manifest: Manifest;
  /** When each part of eval-latest.json was last produced (it merges runs of single suites). */
  updated?: Record<string, string>;
  /** The Markdown report these figures were written with, relative to reports/. */
  report?: string;
}

// ── rows ──

export function recallRow(method: string, label: string, report: RecallReport, extra: Partial<RecallRow> = {}): RecallRow {
  const row: RecallRow = { method, label, status: "ok", ci: {}, queries: report.queries, meanGold: report.meanGold, ...extra };
  for (const c of CUTOFFS) {
    const ci = report.recall[cutoffK(c)];
    if (!ci) continue;
    row[c] = ci.estimate;
    (row.ci as Partial<Record<Cutoff, [number, number]>>)[c] = [ci.lower, ci.upper];
  }
  return row;
}

export function notRunRow(method: string, label: string, reason: string, extra: Partial<RecallRow> = {}): RecallRow {
  return { method, label, status: "not run", reason, ...extra };
}

export function notReproducedRow(method: string, label: string, reason: string, paper: PaperRecall): RecallRow {
  return { method, label, status: "not reproduced", reason, paper };
}

// ── stable-shape validation (what the web page trusts) ──

const num = z.number().finite();
const recallRowSchema = z
  .object({
    method: z.string(),
    label: z.string(),
    status: z.enum(["ok", "not run", "not reproduced"]),
    reason: z.string().optional(),
    "R@5": num.optional(),
    "R@10": num.optional(),
    "R@20": num.optional(),
    "R@50": num.optional(),
  })
  .loose();
export const reportSchema = z
  .object({
    version: z.literal(1),
    kind: z.enum(["full", "smoke"]),
    date: z.string(),
    tables: z.partialRecord(z.enum(TABLE_NAMES as [TableName, ...TableName[]]), z.array(recallRowSchema)),
    attribution: z.object({ precision: num }).loose().optional(),
    coverage: z
      .object({ byK: z.array(z.object({ k: num, share: num }).loose()), variants: z.array(z.object({ variant: z.string() }).loose()) })
      .loose()
      .optional(),
    nonObvious: z
      .object({ rows: z.array(z.object({ method: z.string() }).loose()) })
      .loose()
      .optional(),
    userPapers: z
      .object({
        tables: z.array(
          z
            .object({
              id: z.enum(["ooc", "unseen", "later"]),
              title: z.string(),
              queries: num,
              goldPairs: num,
              sources: z.partialRecord(z.enum(["llm", "offline"]), z.array(recallRowSchema)),
            })
            .loose(),
        ),
      })
      .loose()
      .optional(),
    tableGold: z.partialRecord(z.enum(TABLE_NAMES as [TableName, ...TableName[]]), z.string()).optional(),
    manifest: z.object({ command: z.string(), date: z.string() }).loose(),
  })
  .loose();

/** Parses a report file's text; throws an Error naming the first problem. */
export function parseReport(text: string): EvalReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  const r = reportSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${i.path.join(".") || "report"}: ${i.message}`);
  }
  return r.data as unknown as EvalReport;
}

/**
 * eval-latest.json after a run: the new run's parts replace the same parts of the previous
 * latest, so running one suite keeps the other suites' newest figures.
 */
export function mergeLatest(previous: EvalReport | null, next: EvalReport, reportFile: string): EvalReport {
  const stamp = next.date;
  const updated: Record<string, string> = { ...(previous?.updated ?? {}) };
  const tables = { ...(previous?.tables ?? {}) };
  const tableGold = { ...(previous?.tableGold ?? {}) };
  for (const [name, rows] of Object.entries(next.tables) as [TableName, RecallRow[]][]) {
    tables[name] = rows;
    updated[`tables.${name}`] = stamp;
    if (next.tableGold?.[name]) tableGold[name] = next.tableGold[name];
    else delete tableGold[name];
  }
  const merged: EvalReport = {
    ...(previous ?? {}),
    ...next,
    suites: [...new Set([...(previous?.suites ?? []), ...next.suites])].sort((a, b) => SUITES.indexOf(a) - SUITES.indexOf(b)),
    tables,
    ...(Object.keys(tableGold).length > 0 ? { tableGold } : {}),
    updated,
    report: reportFile,
  };
  for (const part of ["attribution", "coverage", "nonObvious", "userPapers"] as const) {
    if (next[part]) updated[part] = stamp;
    else if (previous?.[part]) (merged as unknown as Record<string, unknown>)[part] = previous[part];
  }
  return merged;
}

// ── Markdown ──

const f3 = (x: number | undefined): string => (x === undefined ? "–" : x.toFixed(3));
/** A signed change at 3 decimals; one that rounds to zero reads 0.000, not −0.000. */
export const formatDelta = (d: number): string => {
  const s = d.toFixed(3);
  return Number(s) === 0 ? "0.000" : d > 0 ? `+${s}` : s;
};
const pct = (x: number | undefined): string => (x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);

function mdTable(header: string[], rows: string[][]): string {
  const esc = (c: string): string => c.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [`| ${header.map(esc).join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`)].join("\n");
}

function cell(row: RecallRow, c: Cutoff): string {
  if (row.status !== "ok") return "–";
  const v = row[c];
  const ci = row.ci?.[c];
  return ci ? `${f3(v)} [${f3(ci[0])}, ${f3(ci[1])}]` : f3(v);
}

function paperCell(row: RecallRow, cutoffs: readonly Cutoff[]): string {
  if (!row.paper) return "";
  return cutoffs
    .filter((c) => row.paper?.[c] !== undefined)
    .map((c) => `${c} ${f3(row.paper?.[c])}`)
    .join(", ");
}

export function recallTableMarkdown(name: TableName, rows: readonly RecallRow[]): string {
  const { cutoffs } = TABLES[name];
  const hasDelta = rows.some((r) => r.delta !== undefined);
  const header = ["Method", ...cutoffs.map((c) => `${c} [95% CI]`), ...(hasDelta ? ["Δ R@20"] : []), "queries", "status", "paper"];
  return mdTable(
    header,
    rows.map((r) => [
      r.label,
      ...cutoffs.map((c) => cell(r, c)),
      ...(hasDelta ? [r.delta === undefined ? "" : formatDelta(r.delta)] : []),
      r.queries === undefined ? "" : String(r.queries),
      r.status === "ok" ? "ok" : `${r.status}: ${r.reason ?? ""}`,
      paperCell(r, cutoffs),
    ]),
  );
}

export const TABLE_NOTES: Partial<Record<TableName, string>> = {
  main: "Generative rows use graph-RRF.",
  ooc: "Gold: the corpus papers each query cites (ooc-gold.tsv). Dense-graph inserts the query ephemerally (top-20 per facet by max-sim, first-hop weights α·s); generative rows use corroboration RRF (no query row in the graph).",
  fusion:
    "Every rule fuses the same per-facet candidate lists. dense-items: each query item's 50 nearest corpus items of the same facet by cosine, concatenated in bullet order (the decoded lists' shape, no model); generative:+floor: the K_min = 3 model's decoded lists, as in the paper. Best single facet: graph-RRF over the one facet with the best R@20. In-corpus graph-RRF keeps only candidates the query's row holds, all of which are gold.",
  leaveOneOut: "Graph-RRF with one facet's list removed; Δ is the change in R@20 from all four.",
  walkDepth: "Max-product path score, 500 candidates per facet, RRF k = 60, top 50.",
  alpha: "Graph rebuilt per α (β = 1 − α); gold fixed to the α = 0.75 graph; dev split.",
};

/** The in-corpus gold definitions (tableGold values). */
export const IN_CORPUS_GOLD = {
  "out-neighbours": "the query's own out-neighbours in the full top-20 typed graph: the papers its own rows hold, in any facet (every split)",
  undirected: "the query's undirected neighbour set in the full top-20 typed graph: its own rows and the rows that hold it, all facets, every split",
} as const;
export type InCorpusGold = keyof typeof IN_CORPUS_GOLD;
/** The tables scored against in-corpus gold (all but "ooc"). */
export const IN_CORPUS_TABLES: readonly TableName[] = ["main", "fusion", "leaveOneOut", "walkDepth", "alpha", "kMin", "identifiers", "supervision"];
/** The paper's mean gold-set size (appendix "Traversal Ablations": "the 39 gold neighbours an average query has"). */
export const PAPER_MEAN_GOLD = 39;

/** The gold a table of this report was scored against (tables written before tableGold existed: undirected). */
export function tableGoldOf(report: Pick<EvalReport, "tableGold">, name: TableName): InCorpusGold | null {
  if (!IN_CORPUS_TABLES.includes(name)) return null;
  const g = report.tableGold?.[name];
  return g === "out-neighbours" ? "out-neighbours" : "undirected";
}

/** The note under a table: what it was scored against and how to read it. */
export function tableNote(report: Pick<EvalReport, "tables" | "tableGold">, name: TableName): string {
  const gold = tableGoldOf(report, name);
  const base = TABLE_NOTES[name];
  if (!gold) return base ?? "";
  const meanGold = report.tables[name]?.find((r) => r.status === "ok" && r.meanGold !== undefined)?.meanGold;
  const mean = meanGold === undefined ? "" : `; mean ${meanGold.toFixed(1)} gold papers per query`;
  if (name === "main") {
    const head =
      gold === "out-neighbours"
        ? `A replication of the paper's in-corpus protocol, not a quality claim. Gold: ${IN_CORPUS_GOLD[gold]}${mean} (the paper: ${PAPER_MEAN_GOLD}).`
        : `A replication of the paper's in-corpus protocol, not a quality claim. Gold: ${IN_CORPUS_GOLD[gold]}${mean}; these figures predate the switch to out-neighbour gold (rerun \`graft eval --suite main\`).`;
    return [
      head,
      "Graph-RRF reads that same adjacency: it keeps only candidates in the query's own rows, all of them gold, so its in-corpus attribution precision is 1.000 by construction, and the dense-graph walk starts from the same rows.",
      base,
      "How good related papers are for a paper you bring is measured by the user-paper tables.",
    ]
      .filter(Boolean)
      .join(" ");
  }
  const goldLine =
    gold === "out-neighbours"
      ? `Gold: the query's own out-neighbours, as in the main table${mean}.`
      : `Gold: ${IN_CORPUS_GOLD.undirected}${mean}; scored before the main table's gold became the query's out-neighbours.`;
  return [goldLine, base].filter(Boolean).join(" ");
}

function attributionMarkdown(a: AttributionSection): string {
  const rows = a.rows.map((r) => [
    r.label,
    r.setting,
    r.lists,
    r.fusion,
    r.status === "ok" ? f3(r.precision) : "–",
    r.status === "ok" ? pct(r.subsetShare) : "–",
    ...FACETS.map((f) => (r.status === "ok" ? f3(r.perFacet?.[f]) : "–")),
    r.pairs === undefined ? "" : String(r.pairs),
    r.status === "ok" ? "ok" : `${r.status}: ${r.reason ?? ""}`,
  ]);
  return [
    `Headline (${a.fusion} over ${a.lists}): precision **${f3(a.precision)}**, credited set ⊆ reference in ${pct(a.subsetShare)} of ${a.pairs} pairs (paper: ${f3(a.paper.precision)}, ${pct(a.paper.subsetShare)}).`,
    "",
    `Reference: ${a.reference}`,
    "",
    mdTable(["Rows", "setting", "lists", "fusion", "precision", "subset share", ...FACETS, "pairs", "status"], rows),
  ].join("\n");
}

function coverageMarkdown(c: CoverageSection): string {
  return [
    `Coverage vs pruning level K (${c.papers} papers; a paper is covered when some paper keeps it among its top-K in some facet):`,
    "",
    mdTable(
      ["K", "covered", "coverage", ...FACETS, "paper"],
      c.byK.map((r) => [String(r.k), String(r.covered), pct(r.share), ...FACETS.map((f) => pct(r.perFacet[f])), r.paper === undefined ? "" : pct(r.paper)]),
    ),
    "",
    "Training-target coverage per distillation recipe (lib/genret/distill.ts on the K = 20 graph; sources are train papers only, targets any paper):",
    "",
    mdTable(
      ["recipe", "examples", "target coverage", "target papers", "DocIDs < K_min", "fallback / floor rows", "s", "status", "paper"],
      c.variants.map((v) => [
        v.label,
        v.examples === undefined ? "–" : v.examples.toLocaleString("en-US"),
        pct(v.targetCoverage),
        v.targetPapers === undefined ? "–" : String(v.targetPapers),
        v.identifiersUnderKMin === undefined ? "–" : String(v.identifiersUnderKMin),
        v.byOrigin ? `${v.byOrigin.fallback ?? 0} / ${v.byOrigin.floor ?? 0}` : "–",
        v.seconds === undefined ? "" : v.seconds.toFixed(1),
        v.status === "ok" ? "ok" : `${v.status}: ${v.reason ?? ""}`,
        v.paper === undefined ? "" : pct(v.paper),
      ]),
    ),
  ].join("\n");
}

function nonObviousMarkdown(n: NonObviousSection): string {
  return [
    `Top-${n.k} retrievals of ${n.queries} out-of-corpus queries; obvious = among the query's ${n.nearest} nearest corpus papers by max_f s_f (the graph's facet max-sim). Base rate (share of all non-obvious query–paper pairs that are cited): ${pct(n.baseRate)} (paper ${pct(n.paper.baseRate)}). Popularity control (the ${n.k} most-cited non-obvious papers per query): non-obvious precision ${pct(n.control.nonObviousPrecision)}.`,
    "",
    mdTable(
      ["Method", "non-obvious share", "correct that are non-obvious", "non-obvious precision", "citation lift", "× popularity control", "status", "paper"],
      n.rows.map((r) => [
        r.label,
        pct(r.nonObviousShare),
        pct(r.correctNonObviousShare),
        pct(r.nonObviousPrecision),
        r.citationLift === undefined ? "–" : `${r.citationLift.toFixed(1)}×`,
        r.popularityRatio === undefined ? "–" : `${r.popularityRatio.toFixed(1)}×`,
        r.status === "ok" ? "ok" : `${r.status}: ${r.reason ?? ""}`,
        r.paper
          ? Object.entries(r.paper)
              .map(([k, v]) => `${k} ${k.endsWith("Share") || k.endsWith("Precision") ? pct(v as number) : `${v}×`}`)
              .join(", ")
          : "",
      ]),
    ),
  ].join("\n");
}

// ── papers users bring ──

const sign = (x: number, digits: number): string => {
  const t = x.toFixed(digits);
  return Number(t) === 0 ? (0).toFixed(digits) : x > 0 ? `+${t}` : t.replace("-", "−");
};
/** "2.02× [1.85, 2.20]". */
export const formatRatio = (r: PairedEstimate | undefined): string =>
  r ? `${r.value.toFixed(2)}×${r.ci ? ` [${r.ci[0].toFixed(2)}, ${r.ci[1].toFixed(2)}]` : ""}` : "";
/** "−4.1% [−7.0%, −1.2%]". */
export const formatChange = (c: PairedEstimate | undefined): string =>
  c ? `${sign(100 * c.value, 1)}%${c.ci ? ` [${sign(100 * c.ci[0], 1)}%, ${sign(100 * c.ci[1], 1)}%]` : ""}` : "";
export const formatLatency = (l: UserPaperRow["latency"]): string => (l ? `${l.meanMs.toFixed(0)} / ${l.p95Ms.toFixed(0)}` : "");

export const USER_PAPERS_HEADING = "Related papers for papers you bring";
export const USER_PAPERS_INTRO =
  "R@20 is the share of a query paper's gold that appears among the first 20 related papers returned for it (a paper not in the graph, as when you paste an abstract), pooled over all queries: for sets 1 and 2 the corpus papers it cites (the work it builds on), for set 3 the later corpus papers citing it (the work building on it).";

/** The note under a user-paper table: gold, counts, how every row was run and what leaks. */
export function userPaperTableNote(t: UserPaperTable, section: Pick<UserPapersSection, "k">): string {
  const served = `Every row is what relatedPapers serves (k = ${section.k}) for the paper sent as a record: with its LLM facets, or with title + abstract only so that the offline extractor runs (the path of a pasted paper). Micro recall over query–paper pairs; 95% percentile-bootstrap intervals over queries; the ratio to BM25 and the ablation's change are paired (both rows recomputed on each resample). ms: wall time of one answer, warm, offline extraction included, on the machine and load of the run (manifest above).`;
  if (t.id === "ooc") {
    return `Gold: ${t.gold}: ${t.queries} queries, ${t.goldPairs} gold pairs (mean ${(t.goldPairs / Math.max(1, t.queries)).toFixed(1)}). The query papers are not in the corpus or its graph. ${served}${t.withoutCitations ? ` These rows ran on corpus "${t.withoutCitations}", the same papers imported without citations.` : ""}`;
  }
  const tune = t.tuning?.queries ? ` (tuning half: ${t.tuning.queries} queries, ${t.tuning.goldPairs} pairs)` : "";
  const bare = t.withoutCitations
    ? ` These rows ran on corpus "${t.withoutCitations}": the same papers imported without any citations, so no retriever reads a citation (gold still comes from the data set's citations).`
    : "";
  return [
    `Gold: ${t.gold}: report half ${t.queries} queries, ${t.goldPairs} gold pairs (mean ${(t.goldPairs / Math.max(1, t.queries)).toFixed(1)})${tune}.`,
    "Each paper is sent with its corpus id, so relatedPapers excludes its own node: it is never returned and never a seed, and its own edges and references are not read.",
    "Remaining leakage: the graph's co-citation and coupling scores c of other pairs count this paper's references (two papers it cites are co-cited through it), which strengthens edges among its gold papers; that affects the dense-graph walk and Graft (trained on those edges), not hybrid's citation expansion, which reads only other papers' references (its BM25 statistics still include the paper's own text).",
    "hybrid's learned second stage counts other papers' citations too (citation and co-citation counts leave this paper's own out) and was fitted on train-split papers queried the same way with the other splits hidden, gold the train papers they cite and those citing them (train-split citations only).",
    "Settings (hybrid's weights and expansion, the second stage's depth and penalty) were chosen on the tuning halves of sets 2 and 3 only (and, for the balance of earlier and later work, on train-split papers' train-split references); its R@20 is shown beside each row.",
    served + bare,
  ].join(" ");
}

function userPaperRowCells(r: UserPaperRow, withTuning: boolean): string[] {
  const ok = r.status === "ok";
  const ci = r.ci?.["R@20"];
  return [
    r.label,
    ok ? (r.appliedFusion ?? r.fusion) : r.fusion,
    ...(["R@5", "R@10"] as const).map((c) => (ok ? f3(r[c]) : "–")),
    ok ? `${f3(r["R@20"])}${ci ? ` [${f3(ci[0])}, ${f3(ci[1])}]` : ""}` : "–",
    ok ? f3(r["R@50"]) : "–",
    ok ? formatRatio(r.ratio) || (r.method === "bm25" ? "1.00× (baseline)" : "") : "–",
    ok ? formatChange(r.change) : "",
    ...(withTuning ? [r.tuning ? `${f3(r.tuning["R@20"])}${r.tuning.ci ? ` [${f3(r.tuning.ci[0])}, ${f3(r.tuning.ci[1])}]` : ""}` : "–"] : []),
    ok ? formatLatency(r.latency) : "",
    ok ? (r.failed ? `ok (${r.failed} queries answered with an error)` : "ok") : `${r.status}: ${r.reason ?? ""}`,
  ];
}

export function userPaperTableMarkdown(t: UserPaperTable): string {
  const withTuning = t.id !== "ooc";
  const header = [
    "Method",
    "fusion run",
    "R@5",
    "R@10",
    "R@20 [95% CI]",
    "R@50",
    "R@20 / BM25 R@20 [95% CI]",
    "Δ R@20 vs default [95% CI]",
    ...(withTuning ? ["R@20 tuning half [95% CI]"] : []),
    "ms mean / p95",
    "status",
  ];
  const out: string[] = [];
  for (const source of USER_PAPER_SOURCES) {
    const rows = t.sources[source];
    if (!rows) continue;
    out.push(
      `#### ${USER_PAPER_SOURCE_LABELS[source]}`,
      "",
      mdTable(
        header,
        rows.map((r) => userPaperRowCells(r, withTuning)),
      ),
      "",
    );
    const popular = rows.filter((r) => r.mostCited && r.mostCited.top20 > 0);
    if (popular.length > 0)
      out.push(
        `The corpus's most-cited paper (${popular[0].mostCited?.paper}) is in the gold of ${pct(popular[0].mostCited?.gold ?? 0)} of the queries; in the first 20 of: ${popular
          .map((r) => `${r.method} ${pct(r.mostCited?.top20 ?? 0)}`)
          .join(", ")}.`,
        "",
      );
  }
  return out.join("\n").trimEnd();
}

function userPapersMarkdown(u: UserPapersSection): string {
  const out: string[] = [`## ${USER_PAPERS_HEADING}`, "", USER_PAPERS_INTRO, ""];
  for (const t of u.tables) out.push(`### ${t.title}`, "", userPaperTableNote(t, u), "", userPaperTableMarkdown(t), "");
  return out.join("\n").trimEnd();
}

export interface MarkdownExtras {
  /** reports/csfcube-dev.json, when present (rendered after the user-paper tables). */
  csfcube?: CsfcubeState;
}

export function reportMarkdown(report: EvalReport, extras: MarkdownExtras = {}): string {
  const m = report.manifest;
  const out: string[] = [
    `# Evaluation: ${report.suites.join(", ")}${report.kind === "smoke" ? " (smoke)" : ""}`,
    "",
    `- Command: \`${m.command}\``,
    `- Date: ${m.date}; wall time ${m.wallSeconds.toFixed(0)} s on ${m.cpus} CPU(s)${m.cpuSeconds === undefined ? "" : `, ${m.cpuSeconds.toFixed(0)} CPU s in the main process`}${m.loadAverage ? ` (load average ${m.loadAverage.start.toFixed(1)} → ${m.loadAverage.end.toFixed(1)})` : ""} (${m.platform}, Node ${m.node}); commit ${m.git.commit ?? "unknown"}${m.git.dirty ? " (uncommitted changes)" : ""}`,
    `- Corpus: ${JSON.stringify(m.corpus)}`,
    `- Embedder: \`${m.embedder}\`; graph: ${JSON.stringify(m.graph)}`,
    `- Retrieval: ${JSON.stringify(m.retrieval)}`,
    `- Recall: micro-averaged over query–paper pairs; 95% percentile-bootstrap CIs over queries (${m.bootstrap.resamples} resamples, seed ${m.bootstrap.seed})`,
    `- Generative provider: ${JSON.stringify(m.generative)}`,
    `- Seconds per section: ${Object.entries(m.sectionSeconds)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(", ")}`,
    "",
  ];
  if (report.userPapers) out.push(userPapersMarkdown(report.userPapers), "");
  if (extras.csfcube && extras.csfcube.status !== "missing") out.push(csfcubeMarkdown(extras.csfcube), "");
  for (const name of TABLE_NAMES) {
    const rows = report.tables[name];
    if (!rows) continue;
    out.push(`## ${TABLES[name].title}`, "");
    const note = tableNote(report, name);
    if (note) out.push(note, "");
    out.push(recallTableMarkdown(name, rows), "");
    if (name === "ooc" && report.nonObvious) out.push("### Non-obvious retrievals", "", nonObviousMarkdown(report.nonObvious), "");
  }
  if (report.attribution) out.push("## Attribution", "", attributionMarkdown(report.attribution), "");
  if (report.coverage) out.push("## Coverage", "", coverageMarkdown(report.coverage), "");
  return `${out.join("\n").trimEnd()}\n`;
}

// ── files ──

export interface WrittenReport {
  markdown: string;
  json: string;
  svgs: string[];
  latest: string | null;
}

/** Another engineer's CSFCube dev results, beside the report (rendered when present). */
export const CSFCUBE_FILE = "csfcube-dev.json";

/**
 * Re-renders eval-latest.md from eval-latest.json and csfcube-dev.json in `dir` without running
 * anything (`graft eval --render`): e.g. after csfcube-dev.json changed.
 */
export function renderLatest(dir: string): string {
  const latest = path.join(dir, "eval-latest.json");
  const report = parseReport(readFileSync(latest, "utf8"));
  const file = path.join(dir, "eval-latest.md");
  writeFileAtomic(file, reportMarkdown(report, { csfcube: readCsfcubeReport(path.join(dir, CSFCUBE_FILE)) }));
  return file;
}

/** The day of a report, YYYY-MM-DD (UTC), as used in its file name. */
export const reportDay = (date: string): string => date.slice(0, 10);

/**
 * Writes eval-<date>.md/.json and the SVG plots into `dir`; a full run also merges into
 * eval-latest.json there and renders it as eval-latest.md (a smoke run never does).
 */
export function writeReport(report: EvalReport, dir: string): WrittenReport {
  mkdirSync(dir, { recursive: true });
  const base = report.kind === "smoke" ? `eval-smoke-${reportDay(report.date)}` : `eval-${reportDay(report.date)}`;
  const markdown = path.join(dir, `${base}.md`);
  const json = path.join(dir, `${base}.json`);
  writeFileAtomic(markdown, reportMarkdown(report, { csfcube: readCsfcubeReport(path.join(dir, CSFCUBE_FILE)) }));
  writeFileAtomic(json, `${JSON.stringify(report, null, 2)}\n`);
  const svgs: string[] = [];
  const svgPrefix = report.kind === "smoke" ? "eval-smoke" : "eval";
  for (const table of ["main", "ooc"] as const) {
    const rows = report.tables[table];
    if (!rows) continue;
    const file = path.join(dir, `${svgPrefix}-recall-${table}.svg`);
    writeFileAtomic(file, recallCurvesSvg(rows, { title: `Recall@k: ${TABLES[table].title}` }));
    svgs.push(file);
  }
  if (report.coverage) {
    const file = path.join(dir, `${svgPrefix}-coverage.svg`);
    writeFileAtomic(file, coverageLadderSvg(report.coverage));
    svgs.push(file);
  }
  let latest: string | null = null;
  if (report.kind === "full") {
    latest = path.join(dir, "eval-latest.json");
    let previous: EvalReport | null = null;
    try {
      previous = parseReport(readFileSync(latest, "utf8"));
    } catch {
      previous = null; // missing or unreadable: start afresh
    }
    const merged = mergeLatest(previous, report, path.basename(markdown));
    writeFileAtomic(latest, `${JSON.stringify(merged, null, 2)}\n`);
    // Every table of the newest figures on one page (the dated file holds only this run's parts).
    writeFileAtomic(path.join(dir, "eval-latest.md"), reportMarkdown(merged, { csfcube: readCsfcubeReport(path.join(dir, CSFCUBE_FILE)) }));
  }
  return { markdown, json, svgs, latest };
}
