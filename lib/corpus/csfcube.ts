/**
 * CSFCube (Mysore et al., NeurIPS 2021 Datasets and Benchmarks; CC BY-NC 4.0) → the papers.jsonl
 * lines `graft import` reads. Each line of CSFCube's abstracts.jsonl holds `paper_id`, `title`,
 * `abstract` (a list of sentences), `pred_labels` (CSFCube's own sentence labels) and
 * `metadata.year`.
 *
 * Facets, `labels`: CSFCube's sentence labels are an offline facet source of this corpus
 * (background and objective → problems, as CSFCube's background facet takes both; method →
 * methods; result → results; other sentences and contributions none), each labelled sentence
 * one item. `none`: no facets, so `graft extract` fills them. A year outside
 * MIN_YEAR–MAX_YEAR (one paper says 801) is left out, with a note.
 */
import type { Facet } from "./types";
import { MAX_YEAR, MIN_YEAR, type PaperLine } from "./paper-schema";

export type CsfcubeFacetSource = "labels" | "none";

/** CSFCube's sentence labels and the Graft facet each maps to. */
export const CSFCUBE_LABEL_FACET: Readonly<Record<string, Facet>> = {
  background_label: "problems",
  objective_label: "problems",
  method_label: "methods",
  result_label: "results",
};

/** CSFCube's query facets and the Graft facet each maps to. */
export const CSFCUBE_FACET: Readonly<Record<"background" | "method" | "result", Facet>> = {
  background: "problems",
  method: "methods",
  result: "results",
};

export interface CsfcubeConversion {
  lines: PaperLine[];
  /** `abstracts.jsonl:N: …` for each value left out (a year out of range). */
  notes: string[];
}

interface CsfcubeRecord {
  paper_id?: unknown;
  title?: unknown;
  abstract?: unknown;
  pred_labels?: unknown;
  metadata?: { year?: unknown } | null;
}

const sentencesOf = (v: unknown): string[] =>
  Array.isArray(v)
    ? v
        .filter((s): s is string => typeof s === "string")
        .map((s) => s.trim())
        .filter(Boolean)
    : [];

/**
 * Converts the text of abstracts.jsonl. Malformed lines are thrown as `file:line: message`, all
 * of them at once (the importer validates the rest).
 */
export function convertCsfcube(text: string, facets: CsfcubeFacetSource, file = "abstracts.jsonl"): CsfcubeConversion {
  const lines: PaperLine[] = [];
  const notes: string[] = [];
  const errors: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const at = `${file}:${i + 1}`;
    if (!raw.trim()) return;
    let rec: CsfcubeRecord;
    try {
      rec = JSON.parse(raw) as CsfcubeRecord;
    } catch {
      errors.push(`${at}: not JSON`);
      return;
    }
    if ((typeof rec.paper_id !== "string" && typeof rec.paper_id !== "number") || typeof rec.title !== "string") {
      errors.push(`${at}: paper_id and title are required`);
      return;
    }
    const id = String(rec.paper_id);
    const raws = Array.isArray(rec.abstract) ? (rec.abstract as unknown[]) : [];
    const sentences = sentencesOf(rec.abstract);
    const line: PaperLine = { id, title: rec.title, abstract: sentences.join(" ") };
    const year = rec.metadata?.year;
    const y = Number(year);
    // "None" is CSFCube's (Python's) missing year.
    if (year !== undefined && year !== null && year !== "" && year !== "None") {
      if (Number.isInteger(y) && y >= MIN_YEAR && y <= MAX_YEAR) line.year = y;
      else notes.push(`${at}: paper ${id}: year ${JSON.stringify(year)} is outside ${MIN_YEAR}-${MAX_YEAR}; imported without a year`);
    }
    if (facets === "labels") {
      const labels = Array.isArray(rec.pred_labels) ? rec.pred_labels : [];
      const out: Partial<Record<Facet, string[]>> = {};
      raws.forEach((s, j) => {
        const f = CSFCUBE_LABEL_FACET[String(labels[j])];
        const t = typeof s === "string" ? s.trim() : "";
        if (f && t) (out[f] ??= []).push(t);
      });
      line.facets = out;
    }
    lines.push(line);
  });
  if (errors.length > 0) throw new Error(errors.join("\n"));
  return { lines, notes };
}
