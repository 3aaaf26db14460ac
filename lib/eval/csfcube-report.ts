/**
 * The CSFCube dev results (issue 17: facet-aware relevance on 24 expert-judged "related through
 * this facet" queries), written by their own run as reports/csfcube-dev.json beside the
 * evaluation report:
 *
 *   { "generated": ISO date, "command": string, "attribution": string (CC BY-NC),
 *     "rows": [{ "method", "label", "facets": "restricted" | "all",
 *                "facet": "background" | "method" | "result" | "all",
 *                "queries", "map", "ndcg20" (NDCG%20, the top 20% of the pool; 0–100), "mapCi"?: [low, high] }],
 *     "references": [{ "label", "map", "ndcg20" }] }
 *
 * Read when the report is rendered (eval-latest.md, the Evaluation page); a missing file leaves
 * the section out, a malformed one is said so.
 */
import { z } from "zod";
import { readReportFile, type ReportFileState } from "./report-file";

export const CSFCUBE_FACETS = ["background", "method", "result", "all"] as const;
export type CsfcubeFacet = (typeof CSFCUBE_FACETS)[number];

const score = z.number().finite().min(0).max(100);
export const csfcubeSchema = z
  .object({
    generated: z.string(),
    command: z.string(),
    attribution: z.string().min(1),
    rows: z.array(
      z
        .object({
          method: z.string(),
          label: z.string(),
          facets: z.enum(["restricted", "all"]),
          facet: z.enum(CSFCUBE_FACETS),
          queries: z.number().int().min(0),
          map: score,
          ndcg20: score,
          mapCi: z.tuple([score, score]).optional(),
        })
        .loose(),
    ),
    references: z.array(z.object({ label: z.string(), map: z.number().finite(), ndcg20: z.number().finite() }).loose()).default([]),
  })
  .loose();
export type CsfcubeReport = z.infer<typeof csfcubeSchema>;
export type CsfcubeRow = CsfcubeReport["rows"][number];

export type CsfcubeState = ReportFileState<CsfcubeReport>;

export function parseCsfcube(text: string): CsfcubeReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  const r = csfcubeSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${i.path.join(".") || "file"}: ${i.message}`);
  }
  return r.data;
}

export function readCsfcubeReport(file: string): CsfcubeState {
  return readReportFile(file, parseCsfcube);
}

/** One line of the pivoted table: a method with one facet setting, its cell per CSFCube facet. */
export interface CsfcubeLine {
  method: string;
  label: string;
  facets: "restricted" | "all";
  cells: Partial<Record<CsfcubeFacet, CsfcubeRow>>;
}

/** Rows pivoted to one line per (method, facet setting), in the file's order; facets as columns. */
export function csfcubeLines(report: CsfcubeReport): CsfcubeLine[] {
  const lines = new Map<string, CsfcubeLine>();
  for (const r of report.rows) {
    const key = `${r.method}\u0000${r.facets}`;
    let l = lines.get(key);
    if (!l) lines.set(key, (l = { method: r.method, label: r.label, facets: r.facets, cells: {} }));
    l.cells[r.facet] = r;
  }
  return [...lines.values()];
}

/** The facet columns the file has, in CSFCube's order, each with its query count when all rows agree. */
export function csfcubeColumns(report: CsfcubeReport): { facet: CsfcubeFacet; queries: number | null }[] {
  return CSFCUBE_FACETS.filter((f) => report.rows.some((r) => r.facet === f)).map((facet) => {
    const qs = new Set(report.rows.filter((r) => r.facet === facet).map((r) => r.queries));
    return { facet, queries: qs.size === 1 ? [...qs][0] : null };
  });
}

export const CSFCUBE_HEADING = "Facet-aware relevance: CSFCube (dev fold)";
export const CSFCUBE_INTRO =
  "Expert-judged queries that ask for papers related through one facet (background, method or result). Each query's candidate pool is ranked through the served pipeline, either restricted to the query's facet or with all facets; MAP and NDCG%20 (CSFCube’s official measure: NDCG over the top 20% of each pool) on a 0–100 scale.";
export const FACETS_LABEL = { restricted: "query's facet only", all: "all facets" } as const;

const f2 = (x: number): string => x.toFixed(2);
/** "41.20 [35.10, 47.00] / 52.30" (MAP with its interval / NDCG%20), or the row's query count when the column has none. */
export function csfcubeCell(r: CsfcubeRow | undefined, columnQueries: number | null): string {
  if (!r) return "–";
  const ci = r.mapCi ? ` [${f2(r.mapCi[0])}, ${f2(r.mapCi[1])}]` : "";
  const n = columnQueries === null ? ` (n = ${r.queries})` : "";
  return `${f2(r.map)}${ci} / ${f2(r.ndcg20)}${n}`;
}

export function csfcubeMarkdown(state: CsfcubeState): string {
  if (state.status === "missing") return "";
  if (state.status === "invalid") return `## ${CSFCUBE_HEADING}\n\n${state.path} could not be read: ${state.message}`;
  const r = state.report;
  const esc = (c: string): string => c.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const table = (header: string[], rows: string[][]): string =>
    [`| ${header.map(esc).join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((x) => `| ${x.map(esc).join(" | ")} |`)].join("\n");
  const cols = csfcubeColumns(r);
  const out = [
    `## ${CSFCUBE_HEADING}`,
    "",
    `${CSFCUBE_INTRO} Cells: MAP [95% CI] / NDCG%20. Generated ${r.generated} by \`${r.command}\`.`,
    "",
    table(
      ["Method", "facets used", ...cols.map((c) => `${c.facet}${c.queries === null ? "" : ` (${c.queries} queries)`}`)],
      csfcubeLines(r).map((l) => [l.label, FACETS_LABEL[l.facets], ...cols.map((c) => csfcubeCell(l.cells[c.facet], c.queries))]),
    ),
  ];
  if (r.references.length > 0) {
    out.push(
      "",
      "Published references:",
      "",
      table(
        ["Reference", "MAP", "NDCG%20"],
        r.references.map((x) => [x.label, f2(x.map), f2(x.ndcg20)]),
      ),
    );
  }
  out.push("", r.attribution);
  return out.join("\n");
}
